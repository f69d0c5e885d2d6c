import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  bytesToHex,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  stringToBytes,
  type TransactionSerializable,
} from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { keccakBytes, keccakOfHex } from '#api/chain/keccak.ts';
import { withFastSigning } from '#api/wallets/fromMnemonic/fastSigner.ts';

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

  it('hashes (Keccak-256 in WebAssembly) exactly as viem’s keccak256 does, across the rate’s block boundary', () => {
    // Lengths around 136 bytes, Keccak-256's rate, where the padding moves to a second block.
    for (const length of [0, 1, 31, 32, 33, 110, 135, 136, 137, 271, 272, 273, 1_000]) {
      const bytes = randomBytes(length);
      const hex = bytesToHex(bytes);
      assert.equal(keccakOfHex(hex), keccak256(hex));
      assert.deepEqual(keccakOfHex(hex, 'bytes'), keccak256(hex, 'bytes'));
      assert.deepEqual(keccakBytes(bytes), keccak256(bytes, 'bytes'));
      // A string is hashed as its UTF-8 bytes (checksums hash the address's text).
      const text = `${randomBytes(length).toString('base64')}é`.slice(-length);
      assert.deepEqual(keccakBytes(text), keccak256(stringToBytes(text), 'bytes'));
    }
  });
});
