import { NETWORK_IDS, type NetworkId, type NetworkType, networkTypeOf } from '#api/config/networks.ts';
import type { Submitter } from '../custody.ts';
import { createFireblocksApi, type FireblocksApi } from './fireblocksApi.ts';
import { createFireblocksSubmitter } from './fireblocksSubmitter.ts';
import type { FireblocksSettings } from './settings.ts';
import { type ProvisionedVault, provisionVault } from './vaults.ts';

/** Everything the platform does with a Fireblocks workspace: vaults for projects, and the submitter. */
export interface FireblocksCustody {
  readonly settings: FireblocksSettings;
  readonly api: FireblocksApi;
  readonly submitter: Submitter;
  /** `mountain-<deployment>-project-<id>`, or `mountain-<deployment>-shared` for the shared wallets. */
  vaultName(owner: number | 'shared'): string;
  /**
   * The vault account `name`, made if missing, with a wallet for the asset of each network of `networkTypes` this
   * deployment serves (the others are made when first used).
   */
  provision(name: string, networkTypes: NetworkType[]): Promise<ProvisionedVault>;
}

/**
 * `networks`: the networks this deployment has an RPC endpoint for; their assets are made with each vault. Without
 * any that has an asset (the admin CLI has no RPC endpoints), the assets FIREBLOCKS_ASSET_ID_* variables name are,
 * and without those the documented ones (ETH, ETH_TEST5): a vault always gets its address, from assets the operator
 * chose where there are some (a testnet workspace has no ETH).
 */
export function createFireblocksCustody(
  settings: FireblocksSettings,
  networks: readonly NetworkId[],
): FireblocksCustody {
  const api = createFireblocksApi(settings);
  return {
    settings,
    api,
    submitter: createFireblocksSubmitter(api, settings),
    vaultName: (owner) =>
      owner === 'shared'
        ? `mountain-${settings.deployment}-shared`
        : `mountain-${settings.deployment}-project-${owner}`,
    provision(name, networkTypes) {
      const assetsOf = (ids: readonly NetworkId[]) =>
        ids
          .filter((id) => networkTypes.includes(networkTypeOf(id)))
          .map((id) => settings.assetIds[id])
          .filter((asset): asset is string => asset !== undefined);
      const choices = [assetsOf(networks), assetsOf(settings.assetIdsSet ?? []), assetsOf(NETWORK_IDS)];
      return provisionVault(api, name, [...new Set(choices.find((assets) => assets.length > 0) ?? [])]);
    },
  };
}
