import type { Custodian, NetworkType, NewWallet } from '../custodian.ts';

/** The deployment mnemonic's indices of the two shared wallets; a dedicated wallet takes the next free index. */
const SHARED_INDEX = { mainnet: 0, testnet: 1 } as const;

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
      let index: number = SHARED_INDEX[networkType];
      if (request.ownerType === 'dedicated') {
        const { rows } = await request.db.query<{ index: number }>(
          "SELECT nextval('wallet_derivation_index_seq')::int AS index",
        );
        index = (rows[0] as { index: number }).index;
      }
      return { address: keys.account(index).address, ref: index };
    };
    const mainnet = await wallet('mainnet');
    return { mainnet, testnet: await wallet('testnet') };
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
