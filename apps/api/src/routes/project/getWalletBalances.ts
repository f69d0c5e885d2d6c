import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { BALANCE_CACHE_MS, BALANCE_TIMEOUT_MS, walletBalances } from '#api/projects/walletBalances.ts';
import { EXAMPLE } from '#api/schemas/examples.ts';

const WalletBalance = Type.Object({
  systemWalletId: Type.Integer({ description: 'The system wallet (`get-project-detail`).' }),
  address: Type.String({ description: 'Its address.' }),
  networkId: Type.Integer({ description: 'The network the balance was read on.' }),
  balance: Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Null()], {
    description: 'The native coin held, in wei (a decimal string); null when the network could not be read.',
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the balance could not be read; null when it was.',
  }),
  lowBalanceThreshold: Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Null()], {
    description:
      'The balance under which the wallet is reported low on this network (`LOW_BALANCE_WEI_<networkId>`), in wei; null when the deployment turned it off.',
  }),
  low: Type.Boolean({ description: 'The balance was read and is under `lowBalanceThreshold`: fund the wallet.' }),
  inFlight: Type.Integer({
    description:
      'The wallet’s transactions on this network sent and not mined yet (at most `MAX_IN_FLIGHT_<networkId>`).',
  }),
  waiting: Type.Integer({ description: 'Its transactions on this network accepted and waiting to be sent.' }),
});

export default defineRoute({
  method: 'GET',
  url: '/project/get-wallet-balances',
  operationId: 'get-wallet-balances',
  tag: 'Project',
  summary: 'Get your system wallets’ balances',
  description:
    'The native-coin balance of every system wallet of the project (its pools included) on every network of their type that this deployment has an ' +
    'RPC endpoint for, read at the latest block (so it moves back if a reorg takes a block away). Each network is ' +
    `read at most once every ${BALANCE_CACHE_MS / 1000} s per wallet, and waits at most ${BALANCE_TIMEOUT_MS / 1000} s ` +
    'for its RPC endpoint: a network that does not answer gives `balance: null` with the reason, never a failed request. ' +
    'Each entry also says whether the balance is under the network’s low-balance threshold (`low`), and how many of the ' +
    'wallet’s transactions are in flight and waiting there.',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'One entry per wallet and network.',
    schema: Type.Object({ balances: Type.Array(WalletBalance) }),
    example: {
      balances: [
        {
          systemWalletId: 1,
          address: EXAMPLE.walletMainnet,
          networkId: 1,
          balance: '250000000000000000',
          error: null,
          lowBalanceThreshold: '50000000000000000',
          low: false,
          inFlight: 3,
          waiting: 0,
        },
        {
          systemWalletId: 2,
          address: EXAMPLE.walletTestnet,
          networkId: 11155111,
          balance: null,
          error: 'The balance could not be read: the RPC endpoint did not answer within 3 s',
          lowBalanceThreshold: '50000000000000000',
          low: false,
          inFlight: 0,
          waiting: 0,
        },
      ],
    },
  },
  errors: [],
  async handler({ principal, deps }) {
    return { balances: await walletBalances(deps.db, deps.chains, projectOf(principal), deps.lowBalanceWei) };
  },
});
