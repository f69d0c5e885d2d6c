import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { compileContract, solcCacheFile } from './solidity.ts';

/** A contract no earlier run compiled: its comment is new each time. */
const fresh = () => `// SPDX-License-Identifier: MIT
// ${randomUUID()}
pragma solidity ^0.8.20;
contract Probe { function answer() external pure returns (uint256) { return 42; } }`;

describe('compileContract', () => {
  const files: string[] = [];
  after(() => {
    for (const file of files) rmSync(file, { force: true });
  });

  it('compiles with solc and keeps the output on disk, where the next process finds it', () => {
    const source = fresh();
    const file = solcCacheFile('Probe.sol', source, 'Probe');
    files.push(file);
    assert.equal(existsSync(file), false);
    const contract = compileContract('Probe.sol', source, 'Probe');
    assert.deepEqual(
      contract.abi.map((item) => ('name' in item ? item.name : item.type)),
      ['answer'],
    );
    assert.match(contract.bytecode, /^0x[0-9a-f]{100,}$/);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), contract);
    assert.equal(compileContract('Probe.sol', source, 'Probe'), contract, 'the same process answers from memory');
  });

  it('takes a cached output as it is, and compiles again over one that does not parse', () => {
    const kept = { abi: [], bytecode: '0x6000' };
    const source = fresh();
    const file = solcCacheFile('Probe.sol', source, 'Probe');
    files.push(file);
    writeFileSync(file, JSON.stringify(kept));
    assert.deepEqual(compileContract('Probe.sol', source, 'Probe'), kept, 'read from the cache, not compiled');

    const other = fresh();
    const broken = solcCacheFile('Probe.sol', other, 'Probe');
    files.push(broken);
    writeFileSync(broken, '{"abi": [');
    const contract = compileContract('Probe.sol', other, 'Probe');
    assert.match(contract.bytecode, /^0x[0-9a-f]{100,}$/);
    assert.deepEqual(JSON.parse(readFileSync(broken, 'utf8')), contract, 'the broken file is replaced');
  });
});
