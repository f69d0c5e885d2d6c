// A transaction from end to end through the client, against the real server, its job worker and a local chain
// (anvil): import, activate, execute (with the generated idempotency key), wait until final, list, deactivate.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConflictError, MountainClient, MountainError } from '@mountain/public-api-client';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';

const CONTRACT = '0x00000000000000000000000000000000000C0FFE';
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const MINT = 'function mint(address to, uint256 amount)';

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

describe('a transaction end to end on a local chain', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let client: MountainClient;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url }, worker: true });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const { apiKey } = await h.project('Transactions');
    const baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/public-api/v3`;
    client = new MountainClient({ apiKey, baseUrl });
    // A contract whose code is a single STOP: every call to it succeeds, so any function can be executed.
    await rpc(anvil.url, 'anvil_setCode', [CONTRACT, '0x00']);
    const { data } = await client.getProjectDetail();
    await rpc(anvil.url, 'anvil_setBalance', [data.mSystemWalletTestnet.address, '0x56BC75E2D63100000']);
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  it('executes, waits for success, and never makes a second transaction for one key', async () => {
    await flow(client);
  });
});

async function flow(client: MountainClient): Promise<void> {
  const imported = await client.importContract({ networkId: 1337, address: CONTRACT, formattedAbi: [MINT] });
  const contractId = imported.contract.id;
  const { contractActivatedFunction } = await client.activateContractFunction({
    contractId,
    formattedAbiFunction: MINT,
  });
  const listed = await client.getContractActivatedFunctions({ contractId });
  assert.ok(listed.contractActivatedFunctions.some((f) => f.id === contractActivatedFunction.id));

  const call = { contractActivatedFunctionId: contractActivatedFunction.id, functionArgs: [RECIPIENT, '1000'] };
  const { transaction } = await client.executeTransaction(call);
  assert.match(transaction.idempotencyKey ?? '', /^[0-9a-f-]{36}$/, 'the client generated the key');
  const again = await client.executeTransaction({ ...call, idempotencyKey: transaction.idempotencyKey ?? '' });
  assert.equal(again.transaction.id, transaction.id, 'the same key answers the original transaction');
  await assert.rejects(
    client.executeTransaction({
      ...call,
      functionArgs: [RECIPIENT, '2'],
      idempotencyKey: transaction.idempotencyKey ?? '',
    }),
    (error) => error instanceof ConflictError && error.status === 409,
  );

  const done = await client.waitForTransaction(transaction.id, { intervalMs: 100, timeoutMs: 30_000 });
  assert.equal(done.status, 'succeeded', done.errorMessage ?? '');
  assert.match(done.transactionHash ?? '', /^0x[0-9a-f]{64}$/);

  const ids: string[] = [];
  for await (const t of client.iterateTransactions({ status: 'succeeded', perPage: 1 })) ids.push(t.id);
  assert.deepEqual(ids, [transaction.id]);

  await client.deactivateContractFunction({ contractId, formattedAbiFunction: MINT });
  await assert.rejects(client.executeTransaction(call), (error) => {
    assert.ok(error instanceof MountainError);
    assert.equal(error.status, 422);
    return true;
  });
}
