import Type from 'typebox';
import { defineRoute } from '#api/http/route.ts';
import { listProjectsForUser } from '#api/projects/projects.ts';
import { ROLES } from '#api/projects/users.ts';
import { PaginationMeta, Project } from '#api/schemas/entities.ts';
import { exampleProject } from '#api/schemas/examples.ts';
import { PageQuery, pageMeta } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'GET',
  url: '/project/get-projects',
  operationId: 'get-projects',
  tag: 'Project',
  summary: 'List your projects',
  description:
    'Lists the projects the calling user is a member of, oldest first. Accepts only a user access token (Authorization: Bearer); a project API key gets 403 ACCESS_TOKEN_REQUIRED.',
  auth: { roles: ROLES, accessTokenOnly: true },
  querystring: Type.Object(PageQuery, { additionalProperties: false }),
  response: {
    status: 200,
    description: 'The projects, one page of them.',
    schema: Type.Object({ data: Type.Object({ projects: Type.Array(Project) }), meta: PaginationMeta }),
    example: {
      data: {
        projects: [exampleProject, { id: 2, projectName: 'Acme Staging', apiKey: 'mtn_test_Zk3pQ8rT1vWx********' }],
      },
      meta: { pageNumber: 1, perPage: 20, totalPage: 1, totalItems: 2 },
    },
  },
  errors: ['ACCESS_TOKEN_REQUIRED'],
  async handler({ query, principal, deps }) {
    if (principal.kind !== 'user') throw new Error('get-projects runs for users only');
    const { page, perPage } = query;
    const { projects, total } = await listProjectsForUser(deps.db, principal.userId, {
      limit: perPage,
      offset: (page - 1) * perPage,
    });
    return { data: { projects }, meta: pageMeta(page, perPage, total) };
  },
});
