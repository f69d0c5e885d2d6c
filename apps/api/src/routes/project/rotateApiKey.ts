import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { currentKeyMode, rotateApiKey } from '#api/projects/projects.ts';

export default defineRoute({
  method: 'POST',
  url: '/project/rotate-api-key',
  operationId: 'rotate-api-key',
  tag: 'Project',
  summary: 'Rotate your project’s API key',
  description:
    'Revokes the project’s API key and answers a new one, shown this once. From this answer on, the old key is refused ' +
    '(401 INVALID_API_KEY) on every API process. Admins only.',
  auth: { roles: ['admin'] },
  response: {
    status: 201,
    description: 'The new API key, in full: store it now.',
    schema: Type.Object({
      apiKey: Type.String({ maxLength: 64, description: 'The new key; the only time it is shown.' }),
    }),
    example: { apiKey: 'mtn_test_4fQ9xZ2mLp7aKd83Jf92LsQ0vX7bN1mC5tR8yW2eZ4hA' },
  },
  errors: [],
  async handler({ principal, deps }) {
    const projectId = projectOf(principal);
    return { apiKey: await rotateApiKey(deps.db, projectId, await currentKeyMode(deps.db, projectId)) };
  },
});
