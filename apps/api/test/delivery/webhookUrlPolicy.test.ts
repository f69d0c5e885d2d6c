// The webhook URL policy on its own: which addresses and ports a webhook URL may point to, and what a refusal says.
// Hosts are IP literals (and localhost), so nothing here needs a resolver beyond the machine's own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '#api/config/config.ts';
import { classifyAddress } from '#api/delivery/addressClass.ts';
import { DEFAULT_WEBHOOK_PORTS, type PrivateAddressAllowance } from '#api/delivery/settings.ts';
import { type WebhookUrlPolicy, webhookUrlRefusal } from '#api/delivery/webhookUrlPolicy.ts';

const policy = (allowance: PrivateAddressAllowance, ports = DEFAULT_WEBHOOK_PORTS): WebhookUrlPolicy => ({
  allowPrivateWebhookAddresses: allowance,
  webhookAllowedPorts: ports,
});

/** A refusal is shown to the client: it names the rule, never an address (dotted IPv4 or colon-separated IPv6). */
function assertNamesNoAddress(message: string): void {
  assert.doesNotMatch(message, /\d{1,3}(\.\d{1,3}){3}/, message);
  assert.doesNotMatch(message, /[0-9a-f]*:[0-9a-f]*:/i, message);
  assert.doesNotMatch(message, /a9fe|169\.254|10\.0\.0/i, message);
}

// Each URL, what its refusal must say. 169.254.169.254 (cloud metadata) is a9fe:a9fe; 10.0.0.1 is a00:1.
const REFUSED: readonly [url: string, says: RegExp][] = [
  // IPv6 forms that embed an IPv4 address: refused as the embedded address would be.
  ['http://[64:ff9b::a9fe:a9fe]/', /^its host is a link-local address, embedded in a NAT64 IPv6 address,/],
  ['http://[64:ff9b:1::a9fe:a9fe]/', /link-local address, embedded in a NAT64 IPv6 address/],
  ['http://[64:ff9b:1:ab:cd::]/', /reserved or special-purpose address, embedded in a NAT64 IPv6 address/],
  ['http://[::ffff:0:a9fe:a9fe]/', /link-local address, embedded in an IPv4-translated IPv6 address/],
  ['http://[::ffff:169.254.169.254]/', /link-local address, embedded in an IPv4-mapped IPv6 address/],
  ['http://[::ffff:a00:1]/', /private address, embedded in an IPv4-mapped IPv6 address/],
  ['http://[::a9fe:a9fe]/', /link-local address, embedded in an IPv4-compatible IPv6 address/],
  ['http://[::10.0.0.1]/', /private address, embedded in an IPv4-compatible IPv6 address/],
  ['http://[2002:a9fe:a9fe::]/', /link-local address, embedded in a 6to4 IPv6 address/],
  ['http://[2002:a00:1::1]/', /private address, embedded in a 6to4 IPv6 address/],
  // Teredo: server 65.54.227.120, client 10.0.0.1 stored inverted (f5ff:fffe); then a private server.
  ['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', /private address, embedded in a Teredo IPv6 address/],
  ['http://[2001:0:a00:1:0:0:a247:28f1]/', /private address, embedded in a Teredo IPv6 address/],
  // IPv4 special-purpose ranges.
  ['http://192.0.0.8/', /^its host is a reserved or special-purpose address,/],
  ['http://192.0.0.170/', /reserved or special-purpose address/],
  ['http://169.254.169.254/latest/meta-data', /^its host is a link-local address,/],
  ['http://100.64.0.1/', /shared \(carrier-grade NAT\) address/],
  ['http://198.18.0.1/', /reserved or special-purpose address/],
  ['http://192.0.2.1/', /reserved or special-purpose address/],
  ['http://203.0.113.7/', /reserved or special-purpose address/],
  ['http://240.0.0.1/', /reserved or special-purpose address/],
  ['http://255.255.255.255/', /broadcast address/],
  ['http://224.0.0.1/', /multicast address/],
  ['http://0.0.0.0/', /unspecified \("this network"\) address/],
  ['http://10.1.2.3/', /private address/],
  // IPv6 special-purpose ranges.
  ['http://[fd00::1]/', /unique-local address/],
  ['http://[fec0::1]/', /site-local address/],
  ['http://[fe80::1]/', /link-local address/],
  ['http://[2001:db8::1]/', /reserved or special-purpose address/],
  ['http://[2001:2::1]/', /reserved or special-purpose address/],
  ['http://[100::1]/', /reserved or special-purpose address/],
  ['http://[ff02::1]/', /multicast address/],
  ['http://[::]/', /unspecified \("this network"\) address/],
];

describe('webhook URL addresses', () => {
  for (const [url, says] of REFUSED) {
    it(`${url} is refused, naming its class and no address`, async () => {
      for (const allowance of ['none', 'loopback'] as const) {
        const refusal = await webhookUrlRefusal(url, policy(allowance));
        assert.ok(refusal, `${url} with ${allowance}`);
        assert.match(refusal, says);
        assert.match(refusal, /, which this deployment does not call$/);
        assertNamesNoAddress(refusal);
      }
    });
  }

  it('public addresses are allowed, IPv4, IPv6 and IPv6 forms embedding a public IPv4 address', async () => {
    for (const [url, via] of [
      ['https://93.184.215.14/hook', undefined],
      ['https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook', undefined],
      ['https://[::ffff:93.184.215.14]/hook', 'IPv4-mapped'],
      ['https://[64:ff9b::5db8:d70e]/hook', 'NAT64'],
      ['https://[2002:5db8:d70e::1]/hook', '6to4'],
      // Teredo: server 65.54.227.120, client 93.184.215.14 (a247:28f1 inverted).
      ['https://[2001:0:4136:e378:8000:63bf:a247:28f1]/hook', 'Teredo'],
    ] as const) {
      assert.equal(await webhookUrlRefusal(url, policy('none')), undefined, url);
      assert.deepEqual(classifyAddress(new URL(url).hostname.replace(/^\[|\]$/g, '')), {
        kind: 'public',
        ...(via ? { via } : {}),
      });
    }
  });

  it('loopback is refused by none, allowed by loopback (also embedded), and all allows every address', async () => {
    for (const url of ['http://127.0.0.1:8080/', 'http://[::1]:8080/', 'http://[::ffff:127.0.0.1]:8080/']) {
      const refusal = await webhookUrlRefusal(url, policy('none'));
      assert.match(refusal ?? '', /^its host is a loopback address/, url);
      assertNamesNoAddress(refusal as string);
      assert.equal(await webhookUrlRefusal(url, policy('loopback')), undefined, url);
    }
    const named = await webhookUrlRefusal('http://localhost:8080/', policy('none'));
    assert.match(named ?? '', /^its host resolves to a loopback address/);
    assertNamesNoAddress(named as string);
    for (const [url] of REFUSED) assert.equal(await webhookUrlRefusal(url, policy('all')), undefined, url);
  });
});

describe('webhook URL ports', () => {
  it('allows 80, 443 and 1024-65535 by default, the scheme’s port when the URL names none', async () => {
    for (const url of [
      'http://93.184.215.14/',
      'https://93.184.215.14/',
      'http://93.184.215.14:443/',
      'https://93.184.215.14:80/',
      'http://93.184.215.14:1024/',
      'https://93.184.215.14:8443/',
      'http://93.184.215.14:65535/',
    ]) {
      assert.equal(await webhookUrlRefusal(url, policy('none')), undefined, url);
    }
  });

  it('refuses other ports, naming the rule, whatever addresses are allowed', async () => {
    for (const port of [0, 1, 22, 25, 53, 81, 444, 1023]) {
      for (const allowance of ['none', 'loopback', 'all'] as const) {
        assert.equal(
          await webhookUrlRefusal(`http://93.184.215.14:${port}/hook`, policy(allowance)),
          `its port ${port} is not one this deployment calls (webhook URLs may use ports 80, 443 and 1024-65535)`,
        );
      }
    }
  });

  it('follows the configured ports', async () => {
    const only = policy('none', [[8443, 8443]]);
    assert.equal(await webhookUrlRefusal('https://93.184.215.14:8443/', only), undefined);
    assert.equal(
      await webhookUrlRefusal('https://93.184.215.14/', only),
      'its port 443 is not one this deployment calls (webhook URLs may use ports 8443)',
    );
  });
});

describe('WEBHOOK_ALLOWED_PORTS', () => {
  const secrets = {
    NODE_ENV: 'test',
    MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
    TOKEN_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
  };

  it('defaults to 80, 443 and 1024-65535 and reads ports and ranges', () => {
    assert.deepEqual(loadConfig(secrets).delivery.webhookAllowedPorts, [
      [80, 80],
      [443, 443],
      [1024, 65535],
    ]);
    assert.deepEqual(loadConfig({ ...secrets, WEBHOOK_ALLOWED_PORTS: '443, 8000-8999' }).delivery.webhookAllowedPorts, [
      [443, 443],
      [8000, 8999],
    ]);
  });

  it('names every wrong item', () => {
    assert.throws(
      () => loadConfig({ ...secrets, WEBHOOK_ALLOWED_PORTS: '443,https,0,70000,9000-8000,,1-' }),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.problems,
          ['https', '0', '70000', '9000-8000', '', '1-'].map(
            (item) =>
              `WEBHOOK_ALLOWED_PORTS: "${item}" is not a port from 1 to 65535 nor a range of them such as 1024-65535`,
          ),
        );
        return true;
      },
    );
  });
});

describe('WEBHOOK_ALLOW_PRIVATE_ADDRESSES', () => {
  const secrets = {
    MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
    TOKEN_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
    DATABASE_URL: 'postgres://127.0.0.1/mountain',
  };
  // Loopback as the review reached it, in forms a URL parser turns into 127.0.0.1, and as names and IPv6.
  const LOOPBACK = [
    'http://127.0.0.1:8080/hook',
    'http://0x7f000001:8080/',
    'http://127.1:8080/',
    'http://localhost:3000/hook',
    'http://[::1]:8080/',
  ];

  it('refuses loopback webhooks by default in every NODE_ENV, development and unset included', async () => {
    for (const nodeEnv of [undefined, 'development', 'test', 'production']) {
      const config = loadConfig({ ...secrets, ...(nodeEnv ? { NODE_ENV: nodeEnv } : {}) });
      assert.equal(config.delivery.allowPrivateWebhookAddresses, 'none', String(nodeEnv));
      for (const url of LOOPBACK) {
        assert.match(
          (await webhookUrlRefusal(url, config.delivery)) ?? 'accepted',
          /^its host (is|resolves to) a loopback address, which this deployment does not call$/,
          `${url} under NODE_ENV=${nodeEnv}`,
        );
      }
    }
  });

  it('accepts them under npm start’s setting (loopback), and still no other private address', async () => {
    const config = loadConfig({ ...secrets, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'loopback' });
    for (const url of LOOPBACK) assert.equal(await webhookUrlRefusal(url, config.delivery), undefined, url);
    assert.ok(await webhookUrlRefusal('http://10.0.0.1:8080/', config.delivery));
    assert.ok(await webhookUrlRefusal('http://169.254.169.254/', config.delivery));
  });
});
