import { formatEther } from 'viem';
import { ApiErrors } from './fireblocksErrors.ts';
import { cursor, pageLimit, type RouteDefinition, type SimulatorContext } from './simulatorRoutes.ts';
import type { VaultRecord } from './simulatorState.ts';

/** Most vault accounts one simulator holds. */
const MAX_VAULTS = 100_000;
const MAX_NAME = 256;

function vault(ctx: SimulatorContext, id: string): VaultRecord {
  const found = ctx.state.vaults.find((v) => v.id === id);
  if (!found) throw ApiErrors.vaultNotFound(id);
  return found;
}

function knownAsset(ctx: SimulatorContext, assetId: string): void {
  if (!ctx.assets[assetId]) throw ApiErrors.assetNotFound(assetId);
}

/** A vault asset (VaultAsset model) with its balance read from the asset's chain. */
async function vaultAsset(ctx: SimulatorContext, account: VaultRecord, assetId: string) {
  const rpc = ctx.engine.chains.rpc(assetId);
  const [balance, block] = await Promise.all([
    rpc.balance(ctx.engine.keys.account(account.id).address),
    rpc.call<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]),
  ]);
  const total = formatEther(balance);
  return {
    id: assetId,
    total,
    balance: total,
    available: total,
    pending: '0',
    frozen: '0',
    lockedAmount: '0',
    staked: '0',
    blockHeight: String(Number(block.number)),
    blockHash: block.hash,
  };
}

async function accountView(ctx: SimulatorContext, account: VaultRecord) {
  return {
    id: account.id,
    name: account.name,
    hiddenOnUI: account.hiddenOnUI,
    customerRefId: account.customerRefId,
    autoFuel: account.autoFuel,
    assets: await Promise.all(account.assets.map((assetId) => vaultAsset(ctx, account, assetId))),
    tags: [],
  };
}

function addressView(ctx: SimulatorContext, account: VaultRecord, assetId: string) {
  return {
    assetId,
    address: ctx.engine.keys.account(account.id).address,
    description: '',
    tag: '',
    type: 'Permanent',
    customerRefId: account.customerRefId,
    addressFormat: 'BASE',
    legacyAddress: '',
    enterpriseAddress: '',
    bip44AddressIndex: 0,
    userDefined: false,
  };
}

function optionalBoolean(body: Record<string, unknown>, field: string): boolean {
  const value = body[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw ApiErrors.vaultCreateFailed(`${field} must be a boolean`);
  return value;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_NAME) {
    throw ApiErrors.vaultCreateFailed(`${field} must be a string of at most ${MAX_NAME} characters`);
  }
  return value;
}

function requireName(body: unknown, fail: (what: string) => Error): string {
  const name = (body as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME) {
    throw fail(`name is required: a non-empty string of at most ${MAX_NAME} characters`);
  }
  return name;
}

/** Vault accounts and their asset wallets (VaultsApi in @fireblocks/ts-sdk api/vaults-api.ts). */
export const vaultRoutes: RouteDefinition[] = [
  {
    method: 'POST',
    template: '/vault/accounts',
    handle(ctx, { body }) {
      const name = requireName(body, ApiErrors.vaultCreateFailed);
      const fields = body as Record<string, unknown>;
      if (ctx.state.vaults.length >= MAX_VAULTS) throw ApiErrors.vaultCreateFailed('too many vault accounts');
      const account: VaultRecord = {
        id: String(ctx.state.nextVaultId++),
        name,
        hiddenOnUI: optionalBoolean(fields, 'hiddenOnUI'),
        autoFuel: optionalBoolean(fields, 'autoFuel'),
        customerRefId: optionalString(fields, 'customerRefId'),
        assets: [],
      };
      ctx.state.vaults.push(account);
      ctx.persist();
      return { status: 200, body: { ...account, assets: [], tags: [] } };
    },
  },
  {
    method: 'GET',
    template: '/vault/accounts_paged',
    async handle(ctx, { query }) {
      const limit = pageLimit(query.get('limit'), 200, 500);
      if (limit === undefined) throw ApiErrors.vaultQueryInvalid('limit must be an integer from 1 to 500');
      const order = query.get('orderBy') ?? 'DESC';
      if (order !== 'ASC' && order !== 'DESC') throw ApiErrors.vaultQueryInvalid('orderBy must be ASC or DESC');
      const prefix = query.get('namePrefix');
      const suffix = query.get('nameSuffix');
      const assetId = query.get('assetId');
      const matching = ctx.state.vaults
        .filter((v) => (!prefix || v.name.startsWith(prefix)) && (!suffix || v.name.endsWith(suffix)))
        .filter((v) => !assetId || v.assets.includes(assetId))
        .sort((a, b) => (order === 'ASC' ? 1 : -1) * (Number(a.id) - Number(b.id)));
      const after = cursor.decode(query.get('after'));
      const before = cursor.decode(query.get('before'));
      const start = after ?? (before === undefined ? 0 : Math.max(0, before - limit));
      const page = matching.slice(start, start + limit);
      const paging: { before?: string; after?: string } = {};
      const links: { previousUrl?: string; nextUrl?: string } = {};
      const link = (name: string, value: string) => {
        const next = new URLSearchParams(query);
        next.delete('before');
        next.delete('after');
        next.set(name, value);
        return `${ctx.baseUrl}/vault/accounts_paged?${next}`;
      };
      if (start + limit < matching.length) {
        paging.after = cursor.encode(start + limit);
        links.nextUrl = link('after', paging.after);
      }
      if (start > 0) {
        paging.before = cursor.encode(start);
        links.previousUrl = link('before', paging.before);
      }
      return {
        status: 200,
        body: { accounts: await Promise.all(page.map((v) => accountView(ctx, v))), paging, ...links },
      };
    },
  },
  {
    method: 'GET',
    template: '/vault/accounts/{vaultAccountId}',
    async handle(ctx, { params }) {
      return { status: 200, body: await accountView(ctx, vault(ctx, params.vaultAccountId)) };
    },
  },
  {
    method: 'PUT',
    template: '/vault/accounts/{vaultAccountId}',
    handle(ctx, { params, body }) {
      const account = vault(ctx, params.vaultAccountId);
      account.name = requireName(body, ApiErrors.vaultRenameFailed);
      ctx.persist();
      return { status: 200, body: { id: account.id, name: account.name } };
    },
  },
  {
    method: 'POST',
    template: '/vault/accounts/{vaultAccountId}/{assetId}',
    handle(ctx, { params }) {
      const account = vault(ctx, params.vaultAccountId);
      knownAsset(ctx, params.assetId);
      if (!account.assets.includes(params.assetId)) {
        account.assets.push(params.assetId);
        ctx.persist();
      }
      // Every EVM asset of a vault account has the account's one address (FIREBLOCKS.md; Fireblocks' EVM wallets).
      const address = ctx.engine.keys.account(account.id).address;
      return {
        status: 200,
        body: { id: account.id, address, legacyAddress: '', enterpriseAddress: '', tag: '', eosAccountName: '' },
      };
    },
  },
  {
    method: 'GET',
    template: '/vault/accounts/{vaultAccountId}/{assetId}',
    async handle(ctx, { params }) {
      const account = vault(ctx, params.vaultAccountId);
      knownAsset(ctx, params.assetId);
      if (!account.assets.includes(params.assetId)) throw ApiErrors.assetNotFound(params.assetId);
      return { status: 200, body: await vaultAsset(ctx, account, params.assetId) };
    },
  },
  {
    method: 'GET',
    template: '/vault/accounts/{vaultAccountId}/{assetId}/addresses_paginated',
    handle(ctx, { params, query }) {
      const account = vault(ctx, params.vaultAccountId);
      knownAsset(ctx, params.assetId);
      if (pageLimit(query.get('limit'), 500, 1000) === undefined) {
        throw ApiErrors.badRequest('limit must be an integer from 1 to 1000');
      }
      // One address per EVM wallet: a single page, whatever the cursors.
      const addresses = account.assets.includes(params.assetId) ? [addressView(ctx, account, params.assetId)] : [];
      return { status: 200, body: { addresses, paging: {} } };
    },
  },
  {
    method: 'GET',
    template: '/vault/accounts/{vaultAccountId}/{assetId}/addresses',
    handle(ctx, { params }) {
      const account = vault(ctx, params.vaultAccountId);
      knownAsset(ctx, params.assetId);
      const addresses = account.assets.includes(params.assetId) ? [addressView(ctx, account, params.assetId)] : [];
      return { status: 200, body: addresses };
    },
  },
];
