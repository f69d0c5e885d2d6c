import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { addSystemWallets, MAX_WALLETS_PER_REQUEST } from '#api/projects/walletPools.ts';
import { ProjectDetail } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleProject, exampleWallet, exampleWallets } from '#api/schemas/examples.ts';
import { DEFAULT_MAX_WALLETS_PER_PROJECT } from '#api/transactions/settings.ts';
import { walletAddresses } from '#api/wallets/fromMnemonic/walletKeys.ts';

const { mainnet, testnet } = exampleWallets;

export default defineRoute({
  method: 'POST',
  url: '/project/add-system-wallets',
  operationId: 'add-system-wallets',
  tag: 'Project',
  summary: 'Add system wallets to your project’s pool',
  description:
    'Adds `count` system wallets of the project’s own custody type to its pool of `networkType`: from-mnemonic, ' +
    'the deployment mnemonic’s next indexes; aws-kms, a new key each; fireblocks, a new vault account each. ' +
    '`execute-transaction` then spreads the project’s transactions over the pool (by free in-flight room), unless ' +
    'one names a wallet (`mSystemWalletId`) or an `orderingKey`. A pool has at most `MAX_WALLETS_PER_PROJECT` ' +
    `wallets per network type (${DEFAULT_MAX_WALLETS_PER_PROJECT} unless the deployment sets otherwise), its primary ` +
    'wallet counted. A project on the shared wallet has no pool (409). New wallets hold nothing: fund them before ' +
    'they send. Admins only.',
  auth: { roles: ['admin'] },
  body: Type.Object(
    {
      networkType: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')], {
        description: 'The pool to add to: the wallets of the mainnets, or of the testnets.',
      }),
      count: Type.Integer({
        minimum: 1,
        maximum: MAX_WALLETS_PER_REQUEST,
        description: `How many wallets to add (1 to ${MAX_WALLETS_PER_REQUEST}).`,
      }),
    },
    { additionalProperties: false },
  ),
  requestExample: { networkType: 'mainnet', count: 1 },
  response: {
    status: 201,
    description: 'The project with every wallet of its pools (`mSystemWallets`).',
    schema: Type.Object({ data: ProjectDetail }),
    example: {
      data: {
        project: exampleProject,
        mSystemWalletMainnet: mainnet,
        mSystemWalletTestnet: testnet,
        mSystemWallets: [mainnet, testnet, exampleWallet(3, EXAMPLE.walletPool, 'mainnet')],
      },
    },
  },
  errors: ['NOT_FOUND', 'CONFLICT', 'WALLET_LIMIT_REACHED', 'CUSTODY_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE'],
  async handler({ body, principal, deps }) {
    const detail = await addSystemWallets(
      {
        db: deps.db,
        custodians: deps.custodians ?? {},
        addresses: () => walletAddresses(deps.db, deps.masterKey),
        maxWalletsPerProject: deps.maxWalletsPerProject ?? DEFAULT_MAX_WALLETS_PER_PROJECT,
      },
      projectOf(principal),
      body,
    );
    return { data: detail };
  },
});
