// The token the docs pages use: contracts/DocsToken.sol, the first contract anvil's first development account
// creates on a fresh chain, so it lands at the address the pages show. npm start deploys it on its chain 1337 and
// hands some to the demo project's testnet wallet; the docs samples' test deploys it on a chain of its own.
import { readFileSync } from 'node:fs';
import { type Address, createWalletClient, getAddress, getContractAddress, type Hash, http, publicActions } from 'viem';
import { type CompiledContract, compileContract } from './solidity.ts';
import { ANVIL_DEPLOYER } from './testContract.ts';

/** Where the deployer's first contract lands (nonce 0): the address every docs page uses. */
export const DOCS_TOKEN_ADDRESS = getContractAddress({ from: ANVIL_DEPLOYER.address, nonce: 0n });

/** The token's whole supply, minted to the deployer. */
export const DOCS_TOKEN_SUPPLY = 10n ** 24n;

/** What npm start gives the demo project's testnet wallet when it holds none. */
export const DEMO_WALLET_GRANT = 10n ** 21n;

let token: CompiledContract | undefined;

/** Compiles contracts/DocsToken.sol, once per process (solc's answer is cached on disk: see solidity.ts). */
export function docsTokenContract(): CompiledContract {
  token ??= compileContract(
    'DocsToken.sol',
    readFileSync(new URL('./contracts/DocsToken.sol', import.meta.url), 'utf8'),
    'DocsToken',
  );
  return token;
}

function clientOf(rpcUrl: string) {
  const chain = {
    id: 1337,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  };
  return createWalletClient({ account: ANVIL_DEPLOYER, chain, transport: http(rpcUrl) }).extend(publicActions);
}

/** The token at `address` through `client`: transfers from the deployer, and its balances and allowances. */
function tokenAt(client: ReturnType<typeof clientOf>, address: Address) {
  const { abi } = docsTokenContract();
  const read = (functionName: 'balanceOf' | 'allowance', args: Address[]) =>
    client.readContract({ address, abi, functionName, args }) as Promise<bigint>;
  return {
    address,
    client,
    async send(to: Address, amount: bigint): Promise<Hash> {
      const hash = await client.writeContract({ address, abi, functionName: 'transfer', args: [to, amount] });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      return hash;
    },
    balanceOf: (owner: Address) => read('balanceOf', [owner]),
    allowance: (owner: Address, spender: Address) => read('allowance', [owner, spender]),
  };
}

async function deploy(client: ReturnType<typeof clientOf>): Promise<Address> {
  const { abi, bytecode } = docsTokenContract();
  const hash = await client.deployContract({ abi, bytecode, args: [DOCS_TOKEN_SUPPLY] });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return receipt.contractAddress as Address;
}

/** Deploys the token on a fresh anvil (it must land at DOCS_TOKEN_ADDRESS) and answers a handle to it. */
export async function deployDocsToken(rpcUrl: string) {
  const client = clientOf(rpcUrl);
  const address = await deploy(client);
  if (address.toLowerCase() !== DOCS_TOKEN_ADDRESS.toLowerCase()) {
    throw new Error(`The token landed at ${address}: the chain was not fresh`);
  }
  return tokenAt(client, address);
}

export interface DemoToken {
  address: Address;
  /** Whether it was deployed now (false: the chain already had it). */
  deployed: boolean;
  /** The wallet's balance of it after the grant. */
  balance: bigint;
}

/**
 * The demo token on npm start's chain: deployed unless the chain (kept between starts) already has it, and
 * DEMO_WALLET_GRANT given to `wallet` from the deployer whenever the wallet holds none. On a chain where the
 * deployer has already created something else, the token lands elsewhere: the answer says where.
 */
export async function ensureDemoToken(rpcUrl: string, wallet: Address): Promise<DemoToken> {
  const client = clientOf(rpcUrl);
  let address: Address = DOCS_TOKEN_ADDRESS;
  let deployed = false;
  if (!(await client.getCode({ address }))) {
    address = getAddress(await deploy(client));
    deployed = true;
  }
  const deployedToken = tokenAt(client, address);
  let balance = await deployedToken.balanceOf(wallet);
  if (balance === 0n && (await deployedToken.balanceOf(ANVIL_DEPLOYER.address)) >= DEMO_WALLET_GRANT) {
    await deployedToken.send(wallet, DEMO_WALLET_GRANT);
    balance = DEMO_WALLET_GRANT;
  }
  return { address, deployed, balance };
}
