import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileCounter } from '@mountain/testkit/testContract.ts';
import { apiKey } from '#api-testing/harness.ts';
import { incrementMany, settled } from '#api-testing/transactionFlow.ts';
import { type FireblocksPlatform, startFireblocksPlatform } from './fireblocksFixture.ts';

describe('Fireblocks wallets: projects and executions through the simulated workspace on anvil', () => {
  let f: FireblocksPlatform;
  let p: Awaited<ReturnType<FireblocksPlatform['project']>>;

  before(async () => {
    f = await startFireblocksPlatform();
    p = await f.project();
  });
  after(async () => {
    await f?.stop();
  });

  it('creates the project’s vault account, named after the project, and shows its address and vault id as both wallets', async () => {
    const detail = (await f.h.call('get-project-detail', { headers: p.headers })).body.data;
    const vault = f.sim.vaultAccounts().find((v) => v.name === `mountain-test-project-${p.projectId}`);
    assert.ok(vault, JSON.stringify(f.sim.vaultAccounts()));
    for (const wallet of [detail.mSystemWalletMainnet, detail.mSystemWalletTestnet]) {
      assert.equal(wallet.type, 'fireblocks');
      assert.equal(wallet.address.toLowerCase(), vault.address.toLowerCase());
      assert.deepEqual(wallet.custody, { provider: 'fireblocks', vaultAccountId: vault.id });
    }
    assert.ok(vault.assets.includes('ETH_LOCAL'));
  });

  it('20 executions all succeed with the canonical receipt’s hash, block and gas; one Fireblocks transaction each', async () => {
    const answers = await incrementMany(f.h, p, 20, 'fb-');
    for (const answer of answers) {
      assert.deepEqual(answer.body.transaction.custody, {
        provider: 'fireblocks',
        id: null,
        status: null,
        subStatus: null,
      });
    }
    const done = await Promise.all(answers.map((a) => settled(f.h, p.headers, a.body.transaction.id, 60_000)));
    const nonces = new Set<number>();
    for (const tx of done) {
      assert.equal(tx.status, 'succeeded', tx.errorMessage);
      const receipt = await f.chain.getTransactionReceipt({ hash: tx.transactionHash });
      const sent = await f.chain.getTransaction({ hash: tx.transactionHash });
      assert.equal(tx.blockNumber, Number(receipt.blockNumber));
      assert.equal(tx.gasUsed, receipt.gasUsed.toString());
      assert.equal(tx.gasPrice, receipt.effectiveGasPrice.toString());
      assert.equal(tx.nonce, sent.nonce);
      assert.equal(sent.from.toLowerCase(), p.wallet.toLowerCase());
      assert.equal(sent.gas.toString(), tx.gasLimit, 'Fireblocks signed the row’s gas limit');
      nonces.add(sent.nonce);
      const custodian = f.custodianTransactionsOf(tx.id);
      assert.equal(custodian.length, 1, `one Fireblocks transaction for row ${tx.id}`);
      assert.equal(tx.custody.provider, 'fireblocks');
      assert.equal(tx.custody.id, custodian[0]?.id);
      assert.equal(custodian[0]?.txHash, tx.transactionHash);
    }
    assert.equal(nonces.size, 20);
    const count = await f.chain.readContract({
      address: f.counter,
      abi: compileCounter().abi,
      functionName: 'count',
    } as never);
    assert.equal(count, 210n);
  });

  it('a project on a network without a Fireblocks asset is refused at execution, naming the variable', async () => {
    const imported = await f.h.call('import-contract', {
      headers: p.headers,
      body: { networkId: 11155111, address: f.counter, formattedAbi: ['function increment(uint256 amount)'] },
    });
    assert.equal(imported.status, 201);
    const activated = await f.h.call('activate-contract-function', {
      headers: p.headers,
      body: { contractId: imported.body.contract.id, formattedAbiFunction: 'function increment(uint256 amount)' },
    });
    const res = await f.h.call('execute-transaction', {
      headers: p.headers,
      body: {
        contractActivatedFunctionId: activated.body.contractActivatedFunction.id,
        functionArgs: ['1'],
        idempotencyKey: 'sepolia-1',
      },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'CUSTODY_NOT_CONFIGURED');
    assert.match(res.body.message, /FIREBLOCKS_ASSET_ID_11155111/);
  });

  it('a from-mnemonic project beside it keeps signing itself, with custody null', async () => {
    const { apiKey: key } = await f.h.project('Mnemonic beside');
    const detail = (await f.h.call('get-project-detail', { headers: apiKey(key) })).body.data;
    assert.equal(detail.mSystemWalletTestnet.type, 'from-mnemonic');
    assert.equal(detail.mSystemWalletTestnet.custody, null);
  });
});
