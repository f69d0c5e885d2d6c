import type { Role } from '#api/projects/users.ts';
import type { Principal } from './authenticate.ts';

/** SPEC §6: the roles that may change a project's contracts, transactions and subscriptions (every role reads). */
export const WRITERS: readonly Role[] = ['admin', 'editor'];

/** The project the caller acts in (every operation but get-projects has one). */
export function projectOf(principal: Principal): number {
  if (principal.kind !== 'apiKey' && principal.kind !== 'accessToken')
    throw new Error('This operation needs a project');
  return principal.projectId;
}

/** The role the caller acts with in its project (an API key acts as the project's admin). */
export function roleOf(principal: Principal): Role {
  if (principal.kind !== 'apiKey' && principal.kind !== 'accessToken')
    throw new Error('This operation needs a project');
  return principal.role;
}
