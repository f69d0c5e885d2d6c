import Type from 'typebox';
import { ApiError } from '#api/errors/ApiError.ts';
import { projectOf, roleOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { getProjectDetail } from '#api/projects/projects.ts';
import { ROLES } from '#api/projects/users.ts';
import { Caller, ProjectDetail } from '#api/schemas/entities.ts';
import { exampleProject, exampleWallets } from '#api/schemas/examples.ts';

export default defineRoute({
  method: 'GET',
  url: '/project/get-project-detail',
  operationId: 'get-project-detail',
  tag: 'Project',
  summary: 'Get your project and its system wallets',
  description:
    'Returns the project the credentials act in, with its mainnet and testnet system wallets (the primary ones) and every wallet of its pools (`mSystemWallets`). The API key is masked. ' +
    '`caller` says how the request was authenticated and with which role, so an app can offer only what the role allows.',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'The project and its two system wallets.',
    schema: Type.Object({ data: ProjectDetail, caller: Caller }),
    example: {
      data: {
        project: exampleProject,
        mSystemWalletMainnet: exampleWallets.mainnet,
        mSystemWalletTestnet: exampleWallets.testnet,
        mSystemWallets: [exampleWallets.mainnet, exampleWallets.testnet],
      },
      caller: { credential: 'apiKey', role: 'admin' },
    },
  },
  errors: [],
  async handler({ principal, deps }) {
    const projectId = projectOf(principal);
    const detail = await getProjectDetail(deps.db, projectId);
    if (!detail) throw new ApiError('NOT_FOUND', { resource: 'Project', id: projectId });
    const credential = principal.kind === 'apiKey' ? ('apiKey' as const) : ('accessToken' as const);
    return { data: detail, caller: { credential, role: roleOf(principal) } };
  },
});
