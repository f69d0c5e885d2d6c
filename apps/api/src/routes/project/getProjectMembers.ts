import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { listMembers } from '#api/projects/listings.ts';
import { ROLES } from '#api/projects/users.ts';
import { Member } from '#api/schemas/entities.ts';

export default defineRoute({
  method: 'GET',
  url: '/project/get-project-members',
  operationId: 'get-project-members',
  tag: 'Project',
  summary: 'List your project’s members',
  description:
    'The users of the project with their role, in the order they joined. Members are added and removed with the admin ' +
    'CLI (`mountain-admin add-member`, `remove-member`).',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'The project’s members.',
    schema: Type.Object({ members: Type.Array(Member) }),
    example: {
      members: [
        { userId: 1, email: 'ada@example.com', name: 'Ada', role: 'admin', since: '2026-01-01T09:00:00.000Z' },
        { userId: 2, email: 'grace@example.com', name: '', role: 'reader', since: '2026-01-02T09:00:00.000Z' },
      ],
    },
  },
  errors: [],
  async handler({ principal, deps }) {
    return { members: (await listMembers(deps.db, projectOf(principal))) ?? [] };
  },
});
