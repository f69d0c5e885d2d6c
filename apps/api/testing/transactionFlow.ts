import assert from 'node:assert/strict';
import { COUNTER_FORMATTED_ABI } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { apiKey, type Harness } from './harness.ts';

export const FINAL = ['succeeded', 'reverted', 'broadcast-failed', 'monitor-failed', 'cancelled'];

/** A project with the Counter imported and `functions` activated; returns the key and activation ids by name. */
export async function counterProject(
  h: Harness,
  address: string,
  functions: string[] = ['increment', 'claim', 'setLocked', 'record'],
  projectOptions: Parameters<Harness['project']>[1] = {},
) {
  const { project, apiKey: key } = await h.project(`Counter ${Math.random().toString(36).slice(2, 8)}`, projectOptions);
  const headers = apiKey(key);
  const imported = await h.call('import-contract', {
    headers,
    body: { networkId: 1337, address, formattedAbi: COUNTER_FORMATTED_ABI },
  });
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  const ids: Record<string, number> = {};
  for (const name of functions) {
    const entry = COUNTER_FORMATTED_ABI.find((e) => e.startsWith(`function ${name}(`)) as string;
    const res = await h.call('activate-contract-function', {
      headers,
      body: { contractId: imported.body.contract.id, formattedAbiFunction: entry },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    ids[name] = res.body.contractActivatedFunction.id;
  }
  const detail = await h.call('get-project-detail', { headers });
  return {
    projectId: project.id,
    headers,
    ids,
    contractId: imported.body.contract.id as number,
    wallet: detail.body.data.mSystemWalletTestnet.address as `0x${string}`,
  };
}

/** Waits until the transaction is in a final state and returns it. */
export async function settled(h: Harness, headers: Record<string, string>, transactionId: string, timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const res = await h.call('get-transaction', { headers, query: { transactionId } });
      return FINAL.includes(res.body.transaction.status) ? res.body.transaction : undefined;
    },
    timeoutMs,
    `transaction ${transactionId} to settle`,
  );
}

/**
 * `count` executions of the Counter's `increment` (argument i + 1, keys `<prefix><i>`): at once, or one after another
 * `spacingMs` apart; checks that each was accepted and returns the answers.
 */
export async function incrementMany(
  h: Harness,
  project: { headers: Record<string, string>; ids: Record<string, number> },
  count: number,
  keyPrefix: string,
  options: { spacingMs?: number } = {},
) {
  const execute = (i: number) =>
    h.call('execute-transaction', {
      headers: project.headers,
      body: {
        contractActivatedFunctionId: project.ids.increment,
        functionArgs: [String(i + 1)],
        idempotencyKey: `${keyPrefix}${i}`,
      },
    });
  const indexes = Array.from({ length: count }, (_, i) => i);
  let answers: Awaited<ReturnType<typeof execute>>[] = [];
  if (options.spacingMs === undefined) answers = await Promise.all(indexes.map(execute));
  else {
    for (const i of indexes) {
      answers.push(await execute(i));
      await new Promise((r) => setTimeout(r, options.spacingMs));
    }
  }
  assert.ok(
    answers.every((a) => a.status === 201),
    JSON.stringify(answers.find((a) => a.status !== 201)?.body),
  );
  return answers;
}
