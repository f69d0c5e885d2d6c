import type { VaultAccount } from '@fireblocks/ts-sdk';
import { type FireblocksApi, FireblocksCallError } from './fireblocksApi.ts';

/** A vault account and the one address its EVM asset wallets share. */
export interface ProvisionedVault {
  vaultAccountId: string;
  address: string;
}

/** Vault accounts listed per page while looking one up by name, and pages looked at (names share prefixes). */
const PAGE = 200;
const MAX_PAGES = 50;
/** Creates tried when each one's answer is lost (the name is looked up again before every try). */
const CREATE_TRIES = 3;

/**
 * The vault account named `name` with a wallet for each of `assetIds`, made if missing. Safe to run again after a
 * crash or a timeout at any step: the vault is looked up by its (unique) name before it is created, and again after
 * a create whose answer was lost, so there is never a second vault; an asset wallet that exists is reused.
 * A refusal from Fireblocks (401, 403, 400…) throws its FireblocksCallError with Fireblocks' message.
 */
export async function provisionVault(api: FireblocksApi, name: string, assetIds: string[]): Promise<ProvisionedVault> {
  let vault = await findVaultByName(api, name);
  for (let attempt = 1; !vault; attempt++) {
    try {
      vault = await api.write((sdk) =>
        sdk.vaults.createVaultAccount({
          createVaultAccountRequest: { name, hiddenOnUI: true, autoFuel: false, customerRefId: name },
        }),
      );
    } catch (error) {
      if (!(error instanceof FireblocksCallError) || error.failure === 'refused' || attempt >= CREATE_TRIES)
        throw error;
      // The create may have been done: look before trying again.
      vault = await findVaultByName(api, name);
    }
  }
  const vaultAccountId = String(vault.id);
  let address: string | undefined;
  for (const assetId of assetIds) {
    const assetAddress = await ensureAssetWallet(api, vaultAccountId, assetId);
    if (address && assetAddress.toLowerCase() !== address.toLowerCase()) {
      throw new Error(
        `Vault account ${vaultAccountId}: asset ${assetId} has another address than the vault's EVM wallets`,
      );
    }
    address ??= assetAddress;
  }
  if (!address) throw new Error('A vault needs at least one asset wallet to have an address');
  return { vaultAccountId, address };
}

/** The vault account with exactly this name, if any (`namePrefix` also matches longer names). */
export async function findVaultByName(api: FireblocksApi, name: string): Promise<VaultAccount | undefined> {
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await api.read((sdk) =>
      sdk.vaults.getPagedVaultAccounts({ namePrefix: name, limit: PAGE, ...(after ? { after } : {}) }),
    );
    const found = answer.accounts?.find((account) => account.name === name);
    if (found) return found;
    after = answer.paging?.after;
    if (!after) return undefined;
  }
  throw new Error(`More than ${PAGE * MAX_PAGES} vault accounts are named "${name}…": cannot look this one up`);
}

/**
 * The address of the vault's wallet of `assetId`, made if missing. A wallet that exists answers its addresses; one
 * that does not is created (a create refused because it exists meanwhile is read again).
 */
export async function ensureAssetWallet(api: FireblocksApi, vaultAccountId: string, assetId: string): Promise<string> {
  const existing = await assetAddress(api, vaultAccountId, assetId);
  if (existing) return existing;
  try {
    const created = await api.write((sdk) => sdk.vaults.createVaultAccountAsset({ vaultAccountId, assetId }));
    if (created.address) return created.address;
  } catch (error) {
    const again = await assetAddress(api, vaultAccountId, assetId);
    if (again) return again;
    throw error;
  }
  const made = await assetAddress(api, vaultAccountId, assetId);
  if (!made) throw new Error(`Fireblocks made asset ${assetId} in vault account ${vaultAccountId} without an address`);
  return made;
}

/** The first address of the vault's `assetId` wallet; undefined when the vault has no such wallet. */
async function assetAddress(api: FireblocksApi, vaultAccountId: string, assetId: string): Promise<string | undefined> {
  try {
    const page = await api.read((sdk) =>
      sdk.vaults.getVaultAccountAssetAddressesPaginated({ vaultAccountId, assetId, limit: 1 }),
    );
    return page.addresses?.[0]?.address;
  } catch (error) {
    // Fireblocks answers a wallet that does not exist with a 4xx (404, or 400 naming the asset).
    if (error instanceof FireblocksCallError && (error.status === 404 || error.status === 400)) return undefined;
    throw error;
  }
}
