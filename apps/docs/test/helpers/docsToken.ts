import { readFileSync } from 'node:fs';
import { type CompiledContract, compileContract } from '@mountain/testkit/solidity.ts';
import { type Address, createWalletClient, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** anvil's first development account: funded at genesis, deploys the token and hands out tokens. */
const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

/** The address the docs pages use: the first contract the deployer creates on a fresh chain (nonce 0). */
export const DOCS_TOKEN_ADDRESS = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

let token: CompiledContract | undefined;

/** Compiles contracts/DocsToken.sol, read once per process (see @mountain/testkit's solidity.ts). */
function compile(): CompiledContract {
  token ??= compileContract(
    'DocsToken.sol',
    readFileSync(new URL('./contracts/DocsToken.sol', import.meta.url), 'utf8'),
    'DocsToken',
  );
  return token;
}

/** Deploys the token on a fresh anvil and returns a way to send tokens from the deployer. */
export async function deployDocsToken(rpcUrl: string) {
  const { abi, bytecode } = compile();
  const chain = {
    id: 1337,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  };
  const client = createWalletClient({ account: DEPLOYER, chain, transport: http(rpcUrl) }).extend(publicActions);
  const hash = await client.deployContract({ abi, bytecode, args: [10n ** 24n] });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.contractAddress?.toLowerCase() !== DOCS_TOKEN_ADDRESS.toLowerCase()) {
    throw new Error(`The token landed at ${receipt.contractAddress}: the chain was not fresh`);
  }
  return {
    client,
    async send(to: Address, amount: bigint) {
      const tx = await client.writeContract({
        address: DOCS_TOKEN_ADDRESS,
        abi,
        functionName: 'transfer',
        args: [to, amount],
      });
      await client.waitForTransactionReceipt({ hash: tx, pollingInterval: 50 });
    },
    async balanceOf(owner: Address): Promise<bigint> {
      return (await client.readContract({
        address: DOCS_TOKEN_ADDRESS,
        abi,
        functionName: 'balanceOf',
        args: [owner],
      })) as bigint;
    },
    async allowance(owner: Address, spender: Address): Promise<bigint> {
      return (await client.readContract({
        address: DOCS_TOKEN_ADDRESS,
        abi,
        functionName: 'allowance',
        args: [owner, spender],
      })) as bigint;
    },
  };
}
