// The configuration of rate limits, CORS origins, fee caps and the worker's shares: defaults, accepted forms, and
// a message naming every wrong value.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseGwei } from 'viem';
import { ConfigError, loadConfig } from '#api/config/config.ts';

describe('configuration of limits and origins', () => {
  const secrets = {
    NODE_ENV: 'test',
    MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
    TOKEN_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
  };

  it('has generous rate limits and any origin by default', () => {
    const config = loadConfig(secrets);
    assert.deepEqual(config.rateLimit, { perMinute: 60_000, burst: 60_000, authFailuresPerMinute: 600 });
    assert.deepEqual(config.cors, { allowedOrigins: '*' });
  });

  it('reads RATE_LIMIT_* and CORS_ALLOWED_ORIGINS', () => {
    const config = loadConfig({
      ...secrets,
      RATE_LIMIT_PER_MINUTE: '120',
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0',
      CORS_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:3000',
    });
    // The burst defaults to the per-minute limit.
    assert.deepEqual(config.rateLimit, { perMinute: 120, burst: 120, authFailuresPerMinute: 0 });
    assert.deepEqual(config.cors, { allowedOrigins: ['https://app.example.com', 'http://localhost:3000'] });
    assert.equal(loadConfig({ ...secrets, RATE_LIMIT_BURST: '10' }).rateLimit.burst, 10);
  });

  it('names every wrong value', () => {
    assert.throws(
      () =>
        loadConfig({
          ...secrets,
          RATE_LIMIT_PER_MINUTE: 'lots',
          RATE_LIMIT_BURST: '0',
          CORS_ALLOWED_ORIGINS: 'https://app.example.com/path,example.com',
        }),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'RATE_LIMIT_PER_MINUTE must be an integer from 0 to 1000000000 (got "lots")',
          'RATE_LIMIT_BURST must be an integer from 1 to 1000000000 (got "0")',
          'CORS_ALLOWED_ORIGINS: "https://app.example.com/path" is not an origin such as https://app.example.com',
          'CORS_ALLOWED_ORIGINS: "example.com" is not an origin such as https://app.example.com',
        ]);
        return true;
      },
    );
  });

  it('reads TRUSTED_PROXIES (none by default), and names what is neither an address nor a range', () => {
    assert.deepEqual(loadConfig(secrets).trustedProxies, []);
    assert.deepEqual(
      loadConfig({ ...secrets, TRUSTED_PROXIES: ' 10.0.0.0/8, 192.0.2.1 ,fd00::/8,::1' }).trustedProxies,
      ['10.0.0.0/8', '192.0.2.1', 'fd00::/8', '::1'],
    );
    assert.throws(
      () => loadConfig({ ...secrets, TRUSTED_PROXIES: '10.0.0.0/33,lb.internal,10.0.0.1/8/1,,fd00::/129,10.0.0/8' }),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.problems,
          ['10.0.0.0/33', 'lb.internal', '10.0.0.1/8/1', '', 'fd00::/129', '10.0.0/8'].map(
            (item) => `TRUSTED_PROXIES: "${item}" is not an IP address nor a range of them such as 10.0.0.0/8`,
          ),
        );
        return true;
      },
    );
  });

  it('refuses an API_HOST other than loopback while NODE_ENV is unset', () => {
    const { NODE_ENV: _, ...unset } = secrets;
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) {
      assert.equal(loadConfig({ ...unset, API_HOST: host }).host, host);
    }
    for (const host of ['0.0.0.0', '::', '192.0.2.10', 'api.example.com']) {
      assert.throws(
        () => loadConfig({ ...unset, API_HOST: host }),
        (error) =>
          error instanceof ConfigError &&
          error.problems.join('\n') ===
            `API_HOST ${host} is not a loopback address and NODE_ENV is unset: set NODE_ENV=production for a ` +
              'deployment (or NODE_ENV=development to serve development’s defaults on that address anyway)',
        host,
      );
      // Said outright, it is the operator's choice.
      assert.equal(loadConfig({ ...unset, NODE_ENV: 'development', API_HOST: host }).host, host);
    }
  });

  it('reads MAX_FEE_PER_GAS_GWEI_<networkId> in gwei, fractions too, per network', () => {
    const config = loadConfig({ ...secrets, MAX_FEE_PER_GAS_GWEI_1: '500', MAX_FEE_PER_GAS_GWEI_42161: '0.25' });
    assert.deepEqual(config.maxFeePerGas, { 1: parseGwei('500'), 42161: parseGwei('0.25') });
  });

  it('names a wrong MAX_FEE_PER_GAS_GWEI_<networkId>', () => {
    for (const value of ['0', '-1', 'lots', '1e3', '20000000', '0.0000000001']) {
      assert.throws(
        () => loadConfig({ ...secrets, MAX_FEE_PER_GAS_GWEI_137: value }),
        (error) =>
          error instanceof ConfigError &&
          error.problems[0] ===
            'MAX_FEE_PER_GAS_GWEI_137 must be a number of gwei above 0 and at most 10000000, such as 500 or 0.1',
        value,
      );
    }
  });

  it('reads WORKER_CONCURRENCY_<LANE> and the per-project shares, and names wrong values', () => {
    const config = loadConfig(secrets);
    assert.deepEqual(config.workerConcurrency, { sending: 8, monitoring: 8, scanning: 4, delivering: 8, upkeep: 1 });
    assert.equal(config.eventNotifier.maxConcurrentScansPerProject, 2);
    assert.equal(config.eventNotifier.maxConcurrentDeliveriesPerProject, 4);
    const set = loadConfig({
      ...secrets,
      WORKER_CONCURRENCY_SENDING: '16',
      WORKER_CONCURRENCY_DELIVERING: '2',
      MAX_CONCURRENT_SCANS_PER_PROJECT: '1',
      MAX_CONCURRENT_DELIVERIES_PER_PROJECT: '10',
    });
    assert.deepEqual(set.workerConcurrency, { sending: 16, monitoring: 8, scanning: 4, delivering: 2, upkeep: 1 });
    assert.equal(set.eventNotifier.maxConcurrentScansPerProject, 1);
    assert.equal(set.eventNotifier.maxConcurrentDeliveriesPerProject, 10);
    assert.throws(
      () => loadConfig({ ...secrets, WORKER_CONCURRENCY_SCANNING: '0', MAX_CONCURRENT_DELIVERIES_PER_PROJECT: 'all' }),
      (error) =>
        error instanceof ConfigError &&
        error.problems.join('\n') ===
          [
            'MAX_CONCURRENT_DELIVERIES_PER_PROJECT must be an integer from 1 to 100 (got "all")',
            'WORKER_CONCURRENCY_SCANNING must be an integer from 1 to 1000 (got "0")',
          ].join('\n'),
    );
  });
});

describe('secrets given as files (<NAME>_FILE, as compose.yaml mounts them)', () => {
  it('reads MASTER_KEY_FILE and TOKEN_SIGNING_KEY_FILE, without their trailing newline', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mountain-secret-files-'));
    try {
      const master = Buffer.alloc(32, 7);
      const signing = Buffer.alloc(32, 8);
      writeFileSync(path.join(dir, 'master_key'), `${master.toString('base64')}\n`);
      writeFileSync(path.join(dir, 'token_signing_key'), `${signing.toString('base64')}\n`);
      const config = loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://localhost/mountain',
        DEPLOYMENT_NAME: 'files',
        MASTER_KEY_FILE: path.join(dir, 'master_key'),
        TOKEN_SIGNING_KEY_FILE: path.join(dir, 'token_signing_key'),
      });
      assert.deepEqual(config.masterKey.current.key, master);
      assert.deepEqual(config.tokenSigningKey, signing);

      const refused = (env: Record<string, string>) => {
        try {
          loadConfig({ NODE_ENV: 'test', TOKEN_SIGNING_KEY: signing.toString('base64'), ...env });
        } catch (error) {
          assert.ok(error instanceof ConfigError);
          return error.message;
        }
        assert.fail('accepted');
      };
      const both = refused({ MASTER_KEY: master.toString('base64'), MASTER_KEY_FILE: path.join(dir, 'master_key') });
      assert.match(both, /set MASTER_KEY or MASTER_KEY_FILE, not both/);
      const missing = refused({ MASTER_KEY_FILE: path.join(dir, 'nowhere') });
      assert.match(missing, /MASTER_KEY_FILE: cannot read .*nowhere \(ENOENT\)/);
      assert.doesNotMatch(both + missing, new RegExp(master.toString('base64').slice(0, 12)), 'never the value');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
