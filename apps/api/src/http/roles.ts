import { ApiError } from '#api/errors/ApiError.ts';
import type { Role } from '#api/projects/users.ts';
import type { Principal } from './authenticate.ts';

/** SPEC §6: who may call what. */
export const ANY_ROLE: readonly Role[] = ['admin', 'editor', 'reader'];
export const WRITERS: readonly Role[] = ['admin', 'editor'];

/** The project the caller acts in (every operation but get-projects has one). */
export function projectOf(principal: Principal): number {
  if (principal.kind === 'user') throw new Error('This operation needs a project');
  return principal.projectId;
}

/** The handler of an operation declared in the contract but not served by this deployment yet. */
export async function notServedYet(): Promise<never> {
  throw new ApiError('NOT_IMPLEMENTED', { operationId: 'this operation' });
}
