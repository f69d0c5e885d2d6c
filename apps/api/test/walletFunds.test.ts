// A transaction its wallet cannot pay for (value + gas limit × fee cap, beside what the wallet's transactions in
// flight may spend) waits `created`, saying why, instead of failing: it is sent once the wallet is funded, and ends
// broadcast-failed, with the same words, after WAIT_FOR_FUNDS_SECONDS. On an interval-mined anvil whose wallet
// balances the test sets (above the development chain's top-up threshold, so nothing tops them up).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { rpcCall } from '@mountain/testkit/jsonRpc.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Address, parseEther, toHex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';
import { settled } from '#api-testing/transactionFlow.ts';

const WAIT_MS = 4_000;

describe('transactions waiting for funds', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let headers: Record<string, string>;
  let receiveId: number;
  let wallet: Address;
  let keys = 0;

  before(async () => {
    anvil = await startAnvil({ port: await freePort(), blockTime: 1 });
    h = await createHarness({
      rpcUrls: { 1337: anvil.url },
      worker: true,
      transactions: { waitForFundsMs: WAIT_MS, fundsPollMs: 200, maxInFlight: { 1337: 16 } },
    });
    const p = await h.project('Funds');
    headers = apiKey(p.apiKey);
    const detail = await h.call('get-project-detail', { headers });
    wallet = detail.body.data.mSystemWalletTestnet.address;
    const recipient = privateKeyToAddress(`0x${'7c'.repeat(32)}`);
    const imported = await h.call('import-contract', {
      headers,
      body: { networkId: 1337, address: recipient, formattedAbi: ['receive() external payable'] },
    });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    const activated = await h.call('activate-contract-function', {
      headers,
      body: {
        contractId: imported.body.contract.id,
        formattedAbiFunction: 'receive() external payable',
        maxValuePerTransaction: parseEther('1000').toString(),
        maxValuePerDay: parseEther('100000').toString(),
      },
    });
    assert.equal(activated.status, 201, JSON.stringify(activated.body));
    receiveId = activated.body.contractActivatedFunction.id;
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  const fund = (ether: string) => rpcCall(anvil.url, 'anvil_setBalance', [wallet, toHex(parseEther(ether))]);
  const pay = async (ether: string) => {
    const res = await h.call('execute-transaction', {
      headers,
      body: {
        contractActivatedFunctionId: receiveId,
        functionArgs: [],
        value: parseEther(ether).toString(),
        idempotencyKey: `funds-${keys++}`,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.transaction.id as string;
  };
  const read = async (id: string) =>
    (await h.call('get-transaction', { headers, query: { transactionId: id } })).body.transaction;

  it('waits, saying what it needs, and is sent once the wallet is funded', async () => {
    await fund('100');
    const first = await pay('60');
    const second = await pay('60');
    assert.equal((await settled(h, headers, first, 30_000)).status, 'succeeded');
    const waiting = await waitFor(
      async () => {
        const t = await read(second);
        return t.errorMessage?.startsWith('Waiting for funds') ? t : undefined;
      },
      15_000,
      'the second transfer to wait for funds',
    );
    assert.equal(waiting.status, 'created');
    assert.match(
      waiting.errorMessage,
      new RegExp(
        `^Waiting for funds: wallet ${wallet} holds \\d+ wei(, of which its transactions in flight may spend \\d+)?; this transaction needs \\d+ wei \\(value ${parseEther('60')} \\+ gas limit \\d+ × max fee \\d+ wei\\)\\. It is sent once the wallet holds enough, or fails after 4 s \\(WAIT_FOR_FUNDS_SECONDS\\)$`,
      ),
    );
    await fund('200');
    const done = await settled(h, headers, second, 30_000);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.errorMessage, null, 'the wait is over, and said no more');
  });

  it('fails after WAIT_FOR_FUNDS_SECONDS with the same words', async () => {
    await fund('200');
    const first = await pay('150');
    const second = await pay('150');
    assert.equal((await settled(h, headers, first, 30_000)).status, 'succeeded');
    const failed = await settled(h, headers, second, WAIT_MS + 20_000);
    assert.equal(failed.status, 'broadcast-failed');
    assert.equal(failed.transactionHash, null, 'never sent');
    assert.match(
      failed.errorMessage,
      new RegExp(
        `^Not sent: for 4 s \\(WAIT_FOR_FUNDS_SECONDS\\) the wallet ${wallet} holds \\d+ wei(, of which its transactions in flight may spend \\d+)?; this transaction needs \\d+ wei`,
      ),
    );
  });
});
