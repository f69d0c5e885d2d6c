// The development-chain seam: anvil's remedies on chain 1337, nothing at all on a real network.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { PublicClient } from 'viem';
import { DEV_CHAIN_ID, devChainOf, NO_DEV_CHAIN } from '#api/chain/devChain.ts';

/** A node that answers like anvil with automine on, and records what it was asked. */
function fakeAnvil(balance: bigint) {
  const asked: string[] = [];
  const client = {
    getBalance: async () => {
      asked.push('eth_getBalance');
      return balance;
    },
    request: async ({ method }: { method: string }) => {
      asked.push(method);
      return method === 'anvil_getAutomine' ? true : null;
    },
  } as unknown as PublicClient;
  return { client, asked };
}

describe('devChainOf', () => {
  it('gives a real network no remedies: nothing is asked of its node', async () => {
    const { client, asked } = fakeAnvil(0n);
    const chain = devChainOf(client, 1);
    assert.equal(chain, NO_DEV_CHAIN);
    await chain.ensureFunds('0x0000000000000000000000000000000000000001');
    assert.equal(await chain.unstick(), false);
    assert.equal(await chain.automineOn(), false);
    assert.deepEqual(asked, []);
  });

  it('tops up a low wallet, mines a block when automine is on, on the development chain', async () => {
    const { client, asked } = fakeAnvil(0n);
    const chain = devChainOf(client, DEV_CHAIN_ID);
    assert.equal(devChainOf(client, DEV_CHAIN_ID), chain, 'one per client');
    await chain.ensureFunds('0x0000000000000000000000000000000000000001');
    assert.equal(await chain.unstick(), true);
    assert.equal(await chain.automineOn(), true);
    assert.deepEqual(asked, [
      'eth_getBalance',
      'anvil_setBalance',
      'anvil_getAutomine',
      'evm_mine',
      'anvil_getAutomine',
    ]);
  });

  it('leaves a funded wallet alone, and does not ask again within a second', async () => {
    const { client, asked } = fakeAnvil(10n ** 30n);
    const chain = devChainOf(client, DEV_CHAIN_ID);
    await chain.ensureFunds('0x0000000000000000000000000000000000000001');
    await chain.ensureFunds('0x0000000000000000000000000000000000000001');
    assert.deepEqual(asked, ['eth_getBalance']);
  });
});

describe('the development-chain seam', () => {
  const src = path.join(import.meta.dirname, '../src');
  /** Every call of devChainOf in apps/api/src, as `file: line` (its definition is not a call). */
  const callers = () =>
    readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        readFileSync(path.join(src, file), 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            /(?<!function )\bdevChainOf\(/.test(line) ? [`${file.split(path.sep).join('/')}:${i + 1}`] : [],
          ),
      );

  it('is chosen in one place: walletChain (transactions/senders.ts) is the one caller of devChainOf', () => {
    const found = callers();
    // The scan's self-check: it reads the sources and finds the one caller (a scan that finds nothing proves nothing).
    assert.ok(
      readFileSync(path.join(src, 'chain/devChain.ts'), 'utf8').includes('export function devChainOf('),
      'the scan looks for the function devChain.ts defines',
    );
    assert.equal(found.length, 1, `devChainOf has ${found.length} callers: ${found.join(', ')}`);
    assert.match(found[0] as string, /^transactions\/senders\.ts:\d+$/);
  });
});
