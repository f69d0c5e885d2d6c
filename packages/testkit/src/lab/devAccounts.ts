import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hex,
  type HttpTransport,
  http,
  type LocalAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** anvil's ten development keys (from its well-known test mnemonic), each funded with 10,000 ETH at genesis. */
const DEV_KEYS: readonly Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
];

const accounts = new Map<number, LocalAccount>();

/**
 * anvil's development account `index` (0 to 9); anvil also signs for these itself (reorg requests). Made once a
 * process (its public key is a multiplication on the curve in JavaScript) and shared: an account holds no state.
 */
export function devAccount(index: number): LocalAccount {
  const key = DEV_KEYS[index];
  if (!key) throw new RangeError(`anvil has development accounts 0 to 9, not ${index}`);
  let account = accounts.get(index);
  if (!account) {
    account = privateKeyToAccount(key);
    accounts.set(index, account);
  }
  return account;
}

/** The local chain 1337 served by the anvil at `url`, as viem's clients describe a chain. */
export function anvilChain(url: string): Chain {
  return {
    id: 1337,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  };
}

// The clients below name viem's type arguments: inferring them and then converting the client to the type it is
// used as costs the typecheck about a second per call site; named, every call shares one instantiation.

/** A wallet client that sends as `account` (one of anvil's development accounts) to the anvil at `url`. */
export function devWallet(url: string, account: LocalAccount): WalletClient<HttpTransport, Chain, LocalAccount> {
  return createWalletClient<HttpTransport, Chain, LocalAccount>({
    account,
    chain: anvilChain(url),
    transport: http(url),
  });
}

/** A read client of the node at `url` (or through `transport`), with viem's default options unless given. */
export function readClient(
  url: string,
  options: { transport?: Transport; chain?: Chain; pollingInterval?: number; cacheTime?: number } = {},
): PublicClient {
  const { transport = http(url), ...rest } = options;
  return createPublicClient<Transport, Chain | undefined>({ transport, ...rest });
}

/** Signs a plain EIP-1559 transfer offline: the raw bytes a wallet would broadcast (and may broadcast again). */
export function signTransfer(
  account: LocalAccount,
  fields: {
    chainId?: number;
    nonce: number;
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
    value?: bigint;
    to?: Address;
  },
): Promise<Hex> {
  return account.signTransaction({
    type: 'eip1559',
    chainId: fields.chainId ?? 1337,
    nonce: fields.nonce,
    to: fields.to ?? '0x000000000000000000000000000000000000dEaD',
    value: fields.value ?? 1n,
    gas: 21_000n,
    maxFeePerGas: fields.maxFeePerGas,
    maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
  });
}
