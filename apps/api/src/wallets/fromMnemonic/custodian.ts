import type { Custodian, NetworkType, NewWallet, PoolRequest } from '../custodian.ts';

/** The deployment mnemonic's indices of the two shared wallets; a dedicated wallet takes the next free index. */
const SHARED_INDEX = { mainnet: 0, testnet: 1 } as const;

/** The mnemonic's next free indexes (a rolled-back transaction leaves its indexes unused: they are never reused). */
async function nextIndexes(db: PoolRequest['db'], count: number): Promise<number[]> {
  const { rows } = await db.query<{ index: number }>(
    "SELECT nextval('wallet_derivation_index_seq')::int AS index FROM generate_series(1, $1::int)",
    [count],
  );
  return rows.map((row) => row.index);
}

/**
 * from-mnemonic: keys derived from the deployment mnemonic (walletKeys.ts), which every deployment has. The
 * platform signs (fastSigner.ts) and broadcasts; its wallets are made in the project's own transaction.
 */
export const fromMnemonicCustodian: Custodian<never, never, never> = {
  type: 'from-mnemonic',
  refColumn: 'derivation_index',
  configuration: null,
  listingKey: null,
  adoptsKey: false,
  async provision(request, { keys }) {
    const wallet = async (networkType: NetworkType): Promise<NewWallet> => {
      const index = request.ownerType === 'dedicated' ? (await nextIndexes(request.db, 1))[0] : undefined;
      const ref = index ?? SHARED_INDEX[networkType];
      return { address: keys.address(ref), ref };
    };
    const mainnet = await wallet('mainnet');
    return { mainnet, testnet: await wallet('testnet') };
  },
  async addWallets(request, { keys }) {
    const indexes = await nextIndexes(request.db, request.positions.length);
    return indexes.map((index) => ({ address: keys.address(index), ref: index }));
  },
  undo: null,
  sends: {
    signer(wallet, { keys }) {
      if (wallet.derivationIndex === null) throw new Error(`Wallet ${wallet.id} has no derivation index`);
      const account = keys.account(wallet.derivationIndex);
      if (account.address.toLowerCase() !== wallet.address.toLowerCase()) {
        throw new Error(`Wallet ${wallet.id} does not match the deployment mnemonic`);
      }
      return account;
    },
  },
  view: null,
};
