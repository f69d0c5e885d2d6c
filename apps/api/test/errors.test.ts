// The platform's errors: one base class carrying a catalogue code, answers' messages built from the catalogue's
// templates with the parameters each template names (checked by the compiler, as the @ts-expect-error lines show).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccessTokenError } from '#api/auth/accessTokens.ts';
import { NetworkNotConfiguredError } from '#api/chain/chains.ts';
import { RateLimitedError } from '#api/chain/rateLimits.ts';
import { DatabaseError, UniqueViolationError } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import { ERROR_CATALOGUE } from '#api/errors/catalogue.ts';
import { AbiEventError } from '#api/eventNotifier/abiEvent.ts';
import { CustodyNotConfiguredError } from '#api/wallets/custody.ts';
import { FireblocksCallError } from '#api/wallets/fireblocks/fireblocksApi.ts';

describe('BaseError', () => {
  it('is what the platform’s errors extend, each with its name and a code of the catalogue', () => {
    const errors: BaseError[] = [
      new ApiError('NOT_FOUND', { resource: 'Contract', id: 7 }),
      new NetworkNotConfiguredError(1),
      new CustodyNotConfiguredError('no Fireblocks credentials', 'FIREBLOCKS_API_KEY'),
      new AbiEventError('not an event'),
      new AccessTokenError('expired', 'the token expired'),
      new RateLimitedError('https://rpc.example', undefined, 'HTTP 429'),
      new UniqueViolationError('duplicate', { cause: new Error('23505') }),
      new FireblocksCallError('Fireblocks answered 400 (code 1438): duplicate', 'refused', 400, 1438, undefined),
    ];
    const expected = [
      ['ApiError', 'NOT_FOUND'],
      ['NetworkNotConfiguredError', 'NETWORK_NOT_CONFIGURED'],
      ['CustodyNotConfiguredError', 'CUSTODY_NOT_CONFIGURED'],
      ['AbiEventError', 'VALIDATION_FAILED'],
      ['AccessTokenError', 'INVALID_ACCESS_TOKEN'],
      ['RateLimitedError', 'CHAIN_UNAVAILABLE'],
      ['UniqueViolationError', 'INTERNAL_ERROR'],
      ['FireblocksCallError', 'INTERNAL_ERROR'],
    ];
    assert.deepEqual(
      errors.map((e) => [e.name, e.code]),
      expected,
    );
    for (const error of errors) {
      assert.ok(error instanceof BaseError && error instanceof Error, error.name);
      assert.ok(error.code in ERROR_CATALOGUE, error.code);
    }
    assert.ok(errors[6] instanceof DatabaseError, 'a subclass is its parent too');
    assert.equal((errors[7] as FireblocksCallError).fireblocksCode, 1438, "Fireblocks' own code is kept beside it");
  });
});

describe('ApiError', () => {
  it('fills the template of its code with the parameters it names', () => {
    const error = new ApiError('NOT_FOUND', { resource: 'Contract', id: 7 });
    assert.equal(error.message, 'Contract 7 was not found');
    assert.equal(error.statusCode, 404);
    assert.deepEqual(error.toBody(), {
      statusCode: 404,
      error: 'Not Found',
      code: 'NOT_FOUND',
      message: 'Contract 7 was not found',
    });
    assert.equal(new ApiError('INVALID_JSON').message, 'The request body is not valid JSON');
  });

  it('takes the parameters of its template, and only those (the compiler refuses the others)', () => {
    // @ts-expect-error NOT_FOUND's template names {resource} and {id}: both are required.
    const missing = new ApiError('NOT_FOUND', { resource: 'Contract' });
    assert.equal(missing.message, 'Contract {id} was not found');
    // @ts-expect-error INVALID_JSON's template names nothing.
    const extra = new ApiError('INVALID_JSON', { reason: 'x' });
    assert.equal(extra.message, 'The request body is not valid JSON');
    // @ts-expect-error CONFLICT's template is '{reason}': its parameters cannot be left out.
    const none = new ApiError('CONFLICT');
    assert.equal(none.message, '{reason}');
  });
});
