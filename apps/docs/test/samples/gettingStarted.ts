// Docs sample checks: the getting-started pages, authentication and the client's setup.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiKey, bearer } from '@mountain/api/testing';
import * as client from '@mountain/public-api-client';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { DOCS_TOKEN_ADDRESS } from '../helpers/docsToken.ts';
import {
  answer,
  databaseUrl,
  example,
  type Json,
  json,
  lines,
  ok,
  type Step,
  TRANSFER_ABI,
  templateLine,
} from './context.ts';

/** The line issue-token prints before the token: the user, the token id (captured) and the expiry. */
const ISSUED_LINE = /^access token for user \d+ \(token id ([0-9a-f-]{36})\), expires \d{4}-\d\d-\d\dT[\d:.]+Z:$/;

export const gettingStartedSteps: Record<string, Step> = {
  'start-output': {
    kind: 'shape',
    // Line by line what scripts/start.ts prints, with each interpolated value standing for anything.
    check: (code) => {
      const source = readFileSync(path.join(REPO_ROOT, 'scripts/start.ts'), 'utf8');
      const from = source.indexOf('Mountain is running.');
      const template = source.slice(from, source.indexOf('`);', from));
      const page = code.trimEnd().split('\n');
      const printed = template.split('\n');
      assert.equal(page.length, printed.length, 'as many lines as npm start prints');
      for (const [i, line] of page.entries()) assert.match(line, templateLine(printed[i] as string), `line ${i + 1}`);
    },
  },
  'reader-env': {
    kind: 'shape',
    // The variables the reader exports are the ones every sample reads (and this test sets).
    check: (code, c) => {
      const names = [...code.matchAll(/^export (\w+)=/gm)].map((m) => m[1]);
      assert.deepEqual(names, Object.keys(c.env).slice(0, 3));
      assert.match(code, new RegExp(`MOUNTAIN_API_URL='${client.DEFAULT_BASE_URL}'`));
    },
  },
  'base-url': {
    kind: 'shape',
    check: (code) => {
      assert.equal(code.trim(), client.DEFAULT_BASE_URL);
      assert.ok(code.trim().endsWith('/public-api/v3'));
    },
  },
  'auth-api-key': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'get-project-detail', 200);
      assert.equal(body.data.project.id, c.projectId);
      c.values.projectDetail = body;
    },
  },
  'key-format': {
    kind: 'shape',
    check: (code, c) => {
      const [test, live] = code
        .trim()
        .split('\n')
        .map((line) => new RegExp(`^${line.replace(/<(\d+) character \w+>/g, '[A-Za-z0-9]{$1}')}$`));
      assert.match(c.key, test as RegExp);
      assert.match(c.key.replace(/^mtn_test_/, 'mtn_live_'), live as RegExp);
      assert.match(c.values.projectDetail.data.project.apiKey, new RegExp(`^${c.key.slice(0, 21)}\\*{8}$`));
    },
  },
  'first-call-curl': {
    kind: 'run',
    check: (out, c) => assert.deepEqual(json(out), c.values.projectDetail),
  },
  'project-detail': {
    kind: 'shape',
    check: (code, c) => {
      const shown = example(code, c, 'get-project-detail', 200, c.values.projectDetail);
      assert.equal(shown.data.project.apiKey.length, c.values.projectDetail.data.project.apiKey.length);
    },
  },
  'system-wallets': {
    kind: 'shape',
    check: (code, c) => {
      const shown = example(code, c, 'get-project-detail', 200, c.values.projectDetail);
      for (const w of ['mSystemWalletMainnet', 'mSystemWalletTestnet']) {
        const omit = ({ id: _id, address: _address, ...rest }: Json) => rest;
        assert.deepEqual(omit(shown.data[w]), omit(c.values.projectDetail.data[w]));
      }
    },
  },
  'auth-access-token': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'get-projects', 200);
      assert.deepEqual(
        body.data.projects.map((p: { id: number }) => p.id),
        [c.projectId],
      );
    },
  },
  'auth-401': {
    kind: 'shape',
    check: async (code, c) => {
      const res = await c.h.call('get-project-detail');
      assert.equal(res.status, 401);
      assert.deepEqual(JSON.parse(code), res.body);
    },
  },
  'auth-403': {
    kind: 'shape',
    check: async (code, c) => {
      const reader = await c.h.member(c.projectId, 'reader');
      const res = await c.h.call('import-contract', {
        headers: bearer(reader.token),
        body: { networkId: 1337, address: DOCS_TOKEN_ADDRESS, formattedAbi: [TRANSFER_ABI] },
      });
      assert.equal(res.status, 403);
      assert.deepEqual(JSON.parse(code), res.body);
    },
  },
  'admin-cli': {
    kind: 'run',
    concurrent: true,
    env: (c) => ({
      DATABASE_URL: databaseUrl(c),
      MASTER_KEY: c.h.masterKey.toString('base64'),
      TOKEN_SIGNING_KEY: c.h.tokenSigningKey.toString('base64'),
    }),
    check: async (out, c) => {
      ok(out);
      const printed = out.stdout.split('\n').filter((l) => !l.startsWith('>') && l.trim() !== '');
      assert.equal(printed[0], 'project 2 "Payments" created');
      assert.match(printed[1] ?? '', /^API key \(shown once, store it now\): mtn_test_[A-Za-z0-9]{44}$/);
      assert.match(printed[2] ?? '', /^user \d+ <dev@example\.com> created$/);
      assert.match(printed[3] ?? '', /^user \d+ is editor of project 2$/);
      assert.match(printed[4] ?? '', ISSUED_LINE);
      const token = printed[5] as string;
      c.values.devToken = { line: printed[4], token, id: ISSUED_LINE.exec(printed[4] as string)?.[1] };
      const projects = await c.h.call('get-projects', { headers: bearer(token) });
      assert.deepEqual(
        projects.body.data.projects.map((p: { projectName: string }) => p.projectName),
        ['Payments'],
      );
      const key = (printed[1] as string).split(': ')[1] as string;
      const detail = await c.h.call('get-project-detail', { headers: apiKey(key) });
      assert.equal(detail.status, 200, JSON.stringify(detail.body));
      assert.equal(detail.body.data.project.projectName, 'Payments');
    },
  },
  'first-call-fetch': {
    kind: 'run',
    concurrent: true,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`Demo project ${c.wallet}`]);
    },
  },
  'first-call-client': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['Demo project']);
    },
  },
  'client-api-key': {
    kind: 'run',
    concurrent: true,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [c.env.MOUNTAIN_API_URL]);
    },
  },
  'client-access-token': {
    kind: 'run',
    concurrent: true,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`${c.projectId} Demo project`]);
    },
  },
  'issue-token-output': {
    kind: 'shape',
    check: (code, c) => {
      // The lines of the page have the shape of those issue-token printed in the admin-cli sample.
      const [line, token] = code.trim().split('\n');
      assert.match(line ?? '', ISSUED_LINE);
      assert.match(c.values.devToken.line, ISSUED_LINE);
      assert.equal(token, 'eyJ…');
      assert.ok((c.values.devToken.token as string).startsWith('eyJ'));
    },
  },
  'admin-revoke': {
    kind: 'run',
    env: (c) => ({
      DATABASE_URL: databaseUrl(c),
      MASTER_KEY: c.h.masterKey.toString('base64'),
      TOKEN_SIGNING_KEY: c.h.tokenSigningKey.toString('base64'),
      TOKEN_ID: c.values.devToken.id,
    }),
    check: async (out, c) => {
      ok(out);
      const printed = out.stdout.split('\n').filter((l) => !l.startsWith('>') && l.trim() !== '');
      assert.match(
        printed[0] ?? '',
        new RegExp(`^access token ${c.values.devToken.id} of user \\d+ revoked \\(it expires `),
      );
      assert.match(printed[1] ?? '', /^user \d+ removed from project 2; every access token of theirs is revoked$/);
      assert.equal(printed.length, 2, out.stdout);
      const res = await c.h.call('get-projects', { headers: bearer(c.values.devToken.token) });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
    },
  },
};
