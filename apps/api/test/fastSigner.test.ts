import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { bytesToHex, parseTransaction, recoverTransactionAddress, type TransactionSerializable } from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { withFastSigning } from '#api/wallets/fastSigner.ts';

const random = (bytes: number) => BigInt(bytesToHex(randomBytes(bytes)));
const to = () => bytesToHex(randomBytes(20));

describe('withFastSigning (system wallets sign with libsecp256k1)', () => {
  it('signs exactly as viem does: the same bytes for EIP-1559, EIP-2930 and legacy transactions', async () => {
    const mnemonic = generateMnemonic(english, 256);
    for (let i = 0; i < 60; i++) {
      const account = mnemonicToAccount(mnemonic, { addressIndex: i % 5 });
      const fast = withFastSigning(account);
      const common = {
        to: to(),
        data: bytesToHex(randomBytes(i)),
        nonce: i * 7,
        gas: 21_000n + random(2),
        value: random(4),
      };
      const transactions: TransactionSerializable[] = [
        { ...common, chainId: 1337, type: 'eip1559', maxFeePerGas: random(5), maxPriorityFeePerGas: random(3) },
        { ...common, chainId: 1, type: 'eip2930', gasPrice: random(5), accessList: [] },
        { ...common, chainId: 11155111, type: 'legacy', gasPrice: random(5) },
      ];
      for (const transaction of transactions) {
        const expected = await account.signTransaction(transaction);
        const actual = await fast.signTransaction(transaction);
        assert.equal(actual, expected, `${transaction.type} #${i}`);
        assert.equal(await recoverTransactionAddress({ serializedTransaction: actual as never }), account.address);
      }
    }
  });

  it('keeps the account otherwise as it was (address, message signing, the key inside)', async () => {
    const account = mnemonicToAccount(generateMnemonic(english, 256));
    const fast = withFastSigning(account);
    assert.equal(fast.address, account.address);
    assert.equal(await fast.signMessage({ message: 'hello' }), await account.signMessage({ message: 'hello' }));
    const signed = await fast.signTransaction({ chainId: 1337, type: 'eip1559', to: to(), nonce: 0, gas: 21_000n });
    assert.equal(parseTransaction(signed).type, 'eip1559');
  });
});
