import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '#api/config/config.ts';

const secrets = {
  MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
  TOKEN_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
};

// What the route does is checked end to end in scripts/start.test.ts (npm start restarts the API it ends).
describe('FAULT_INJECTION', () => {
  it('is off unless set to 1, and refused in production', () => {
    assert.equal(loadConfig({ ...secrets, NODE_ENV: 'test' }).faultInjection, false);
    assert.equal(loadConfig({ ...secrets, NODE_ENV: 'development', FAULT_INJECTION: '1' }).faultInjection, true);
    assert.throws(
      () => loadConfig({ ...secrets, NODE_ENV: 'production', FAULT_INJECTION: '1' }),
      (error) =>
        error instanceof ConfigError && error.problems.includes('FAULT_INJECTION is for development and tests only'),
    );
    assert.throws(
      () => loadConfig({ ...secrets, NODE_ENV: 'test', FAULT_INJECTION: 'yes' }),
      (error) => error instanceof ConfigError && /FAULT_INJECTION must be 1 or 0/.test(error.problems.join()),
    );
  });
});
