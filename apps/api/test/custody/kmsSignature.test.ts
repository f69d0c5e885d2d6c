import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { derSignature, SECP256K1_N } from '@mountain/testkit/awsKms/ecKey.ts';
import { pointFromScalar, recover, sign } from 'tiny-secp256k1';
import { bytesToHex, type Hex, keccak256 } from 'viem';
import { curveThread } from '#api/wallets/awsKms/curveThread.ts';
import {
  type CurveOps,
  ethereumSignature,
  inThisThread,
  recoveryId,
  SignatureMismatchError,
} from '#api/wallets/awsKms/ethereumSignature.ts';

const HALF_N = SECP256K1_N / 2n;
const big = (bytes: Uint8Array) => BigInt(bytesToHex(bytes));
const addressOf = (point: Uint8Array) => `0x${keccak256(point.subarray(1)).slice(-40)}`;

/** A random private key (below n, not zero). */
function privateKey(): Buffer {
  for (;;) {
    const d = randomBytes(32);
    const k = big(d);
    if (k > 0n && k < SECP256K1_N) return d;
  }
}

/** What tiny-secp256k1's two recoveries say: the recovery id whose signer is `address`, if one is. */
function byTwoRecoveries(digest: Uint8Array, compact: Uint8Array, address: string): 0 | 1 | undefined {
  for (const id of [0, 1] as const) {
    const point = recover(digest, compact, id, false);
    if (point && addressOf(point) === address) return id;
  }
  return undefined;
}

const curves: [string, CurveOps][] = [
  ['in this thread', inThisThread],
  ['in a thread of their own', curveThread()],
];

for (const [where, curve] of curves) {
  describe(`AWS KMS signatures: DER to an Ethereum signature, the recovery id found with one recovery (curve operations ${where})`, () => {
    it('gives the recovery id tiny-secp256k1 recovers the signer with, over random keys and hashes, high and low s', async () => {
      const seen = { parity: [0, 0], high: 0 };
      for (let i = 0; i < 400; i++) {
        const d = privateKey();
        const address = addressOf(pointFromScalar(d, false) as Uint8Array);
        const digest = randomBytes(32);
        const compact = sign(digest, d, randomBytes(32));
        const r = big(compact.subarray(0, 32));
        const lowS = big(compact.subarray(32));
        // KMS gives n − s about half the time; Ethereum wants the low one.
        const high = i % 2 === 1;
        if (high) seen.high++;
        const der = derSignature(r, high ? SECP256K1_N - lowS : lowS);
        const hash = bytesToHex(digest) as Hex;
        const answer = await ethereumSignature(hash, der, address, curve);
        assert.equal(big(Buffer.from(answer.r.slice(2), 'hex')), r);
        assert.equal(big(Buffer.from(answer.s.slice(2), 'hex')), lowS);
        assert.ok(lowS <= HALF_N);
        const expected = byTwoRecoveries(digest, compact, address);
        assert.equal(answer.yParity, expected, `key ${d.toString('hex')}, hash ${hash}`);
        seen.parity[answer.yParity] = (seen.parity[answer.yParity] ?? 0) + 1;
        // And the signer it names is the wallet, by the library's own recovery.
        assert.equal(addressOf(recover(digest, compact, answer.yParity, false) as Uint8Array), address);
      }
      assert.ok((seen.parity[0] ?? 0) > 100 && (seen.parity[1] ?? 0) > 100, JSON.stringify(seen));
    });

    it('answers no recovery id, and never a wrong one, for another key’s signature', async () => {
      for (let i = 0; i < 200; i++) {
        const d = privateKey();
        const other = addressOf(pointFromScalar(privateKey(), false) as Uint8Array);
        const digest = randomBytes(32);
        const compact = sign(digest, d, randomBytes(32));
        assert.equal(await recoveryId(digest, compact, big(compact.subarray(0, 32)), other, curve), undefined);
        const der = derSignature(big(compact.subarray(0, 32)), big(compact.subarray(32)));
        await assert.rejects(ethereumSignature(bytesToHex(digest), der, other, curve), SignatureMismatchError);
      }
    });

    it('answers no recovery id for a signature of another hash', async () => {
      for (let i = 0; i < 100; i++) {
        const d = privateKey();
        const address = addressOf(pointFromScalar(d, false) as Uint8Array);
        const compact = sign(randomBytes(32), d, randomBytes(32));
        assert.equal(
          await recoveryId(randomBytes(32), compact, big(compact.subarray(0, 32)), address, curve),
          undefined,
        );
      }
    });

    it('finds the recovery id when the digest is 0 or n (z ≡ 0 mod n), where the shortcut cannot be taken', async () => {
      const n = Buffer.from(SECP256K1_N.toString(16), 'hex');
      for (const digest of [Buffer.alloc(32), n]) {
        for (let i = 0; i < 20; i++) {
          const d = privateKey();
          const address = addressOf(pointFromScalar(d, false) as Uint8Array);
          const compact = sign(digest, d, randomBytes(32));
          const id = await recoveryId(digest, compact, big(compact.subarray(0, 32)), address, curve);
          assert.equal(id, byTwoRecoveries(digest, compact, address));
          assert.notEqual(id, undefined);
        }
      }
    });

    it('many at once: each gets its own answer', async () => {
      const cases = Array.from({ length: 64 }, () => {
        const d = privateKey();
        const digest = randomBytes(32);
        const compact = sign(digest, d, randomBytes(32));
        return { digest, compact, address: addressOf(pointFromScalar(d, false) as Uint8Array) };
      });
      const ids = await Promise.all(
        cases.map((c) => recoveryId(c.digest, c.compact, big(c.compact.subarray(0, 32)), c.address, curve)),
      );
      assert.deepEqual(
        ids,
        cases.map((c) => byTwoRecoveries(c.digest, c.compact, c.address)),
      );
    });
  });
}
