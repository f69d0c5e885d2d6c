import Type from 'typebox';
import { component } from '#api/schemas/components.ts';
import { type Custodian, configured } from '../custodian.ts';
import { devFireblocksEnv } from './devSimulator.ts';
import { FireblocksCallError } from './fireblocksApi.ts';
import type { FireblocksCustody } from './fireblocksCustody.ts';
import { FIREBLOCKS_VARIABLES, type FireblocksSettings, parseFireblocksSettings } from './settings.ts';

const NOT_CONFIGURED =
  'Fireblocks custody is not configured for this deployment: set FIREBLOCKS_API_KEY and FIREBLOCKS_SECRET_KEY_PATH (see the Fireblocks wallets page of the docs), or use from-mnemonic wallets';

/**
 * fireblocks: a submitter. A project's two wallets are one vault account (`mountain-<deployment>-project-<id>`, or
 * the one shared vault account), named by the reserved project id, so a creation run again after a crash or a
 * timeout finds the vault by its name instead of making a second one; Fireblocks signs and broadcasts.
 */
export const fireblocksCustodian: Custodian<'fireblocks', FireblocksSettings, FireblocksCustody> = {
  type: 'fireblocks',
  refColumn: 'fireblocks_vault_id',
  configuration: {
    notConfigured: NOT_CONFIGURED,
    name: 'fireblocks',
    variables: FIREBLOCKS_VARIABLES,
    settings({ env, nodeEnv, production, dataDir }, problems) {
      // In development without a workspace of its own, the simulated one `npm start` runs (if it runs).
      const fireblocksEnv =
        nodeEnv === 'development' && !env.FIREBLOCKS_API_KEY ? { ...env, ...devFireblocksEnv(dataDir) } : env;
      return parseFireblocksSettings(fireblocksEnv, production, problems);
    },
    async client(settings, networks) {
      const { createFireblocksCustody } = await import('./fireblocksCustody.ts');
      return createFireblocksCustody(settings, networks);
    },
  },
  listingKey: 'vaultAccountId',
  adoptsKey: false,
  async provision(request, { client }) {
    const fireblocks = configured(client, NOT_CONFIGURED);
    const owner = request.ownerType === 'shared' ? 'shared' : (request.projectId as number);
    const vault = await fireblocks.provision(fireblocks.vaultName(owner), ['mainnet', 'testnet']);
    const wallet = { address: vault.address, ref: vault.vaultAccountId };
    return { mainnet: wallet, testnet: wallet };
  },
  async addWallets(request, { client }) {
    // A vault account each, of the pool's network type only: Fireblocks takes one transaction at a time per vault
    // account and asset, so a pool of vaults is what lets a project have several in flight.
    const fireblocks = configured(client, NOT_CONFIGURED);
    const made = [];
    for (const position of request.positions) {
      const name = `${fireblocks.vaultName(request.projectId)}-${request.networkType}-${position}`;
      const vault = await fireblocks.provision(name, [request.networkType]);
      made.push({ address: vault.address, ref: vault.vaultAccountId });
    }
    return made;
  },
  undo(error) {
    if (!(error instanceof FireblocksCallError)) return { refused: false };
    return error.failure === 'refused' ? { refused: true } : { refused: false, resumesWith: 'the same vault account' };
  },
  sends: { submitter: (client) => configured(client, NOT_CONFIGURED).submitter },
  view: {
    sql: (w) => `json_build_object('provider', 'fireblocks', 'vaultAccountId', ${w}.fireblocks_vault_id)`,
    schema: component(
      'WalletCustody',
      Type.Object(
        {
          provider: Type.Union([Type.Literal('fireblocks')], { description: 'The custodian that keeps the key.' }),
          vaultAccountId: Type.String({ description: 'The Fireblocks vault account that holds the wallet.' }),
        },
        { description: 'Where the key is kept, for a wallet kept by a custodian; null for from-mnemonic.' },
      ),
    ),
  },
};
