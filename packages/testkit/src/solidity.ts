// The tests' contracts compiled with solc-js, offline (the compiler ships in its npm package). Loading solc and
// compiling one contract take about 2 s of CPU, which every test process deploying a contract paid: the output is
// kept on disk, named by the hash of what went in (solc's version, the source, the settings).
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Abi, Hex } from 'viem';
import { REPO_ROOT } from './repoRoot.ts';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

/** Where compiled contracts are kept between processes. */
export const SOLC_CACHE = path.join(REPO_ROOT, 'node_modules', '.cache', 'mountain', 'solc');

const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode'] } },
};
const require = createRequire(import.meta.url);
const compiled = new Map<string, CompiledContract>();

/**
 * `contractName` of the Solidity `source` (compiled as `fileName`): its ABI and creation bytecode, from this process's
 * memory, the disk cache, or solc. A cache file that does not parse is compiled again.
 */
export function compileContract(fileName: string, source: string, contractName: string): CompiledContract {
  const file = solcCacheFile(fileName, source, contractName);
  const known = compiled.get(file);
  if (known) return known;
  let contract: CompiledContract | undefined;
  try {
    contract = JSON.parse(readFileSync(file, 'utf8')) as CompiledContract;
    if (!Array.isArray(contract.abi) || !/^0x[0-9a-f]+$/.test(contract.bytecode)) contract = undefined;
  } catch {
    contract = undefined;
  }
  if (!contract) {
    contract = solcCompile(fileName, source, contractName);
    mkdirSync(SOLC_CACHE, { recursive: true });
    // Whole or not at all: another process may be writing the same file.
    const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
    writeFileSync(temporary, JSON.stringify(contract));
    renameSync(temporary, file);
  }
  compiled.set(file, contract);
  return contract;
}

/** The cache file of a compilation: named by the hash of solc's version, the source and the settings. */
export function solcCacheFile(fileName: string, source: string, contractName: string): string {
  const { version } = require('solc/package.json') as { version: string };
  const key = createHash('sha256')
    .update(JSON.stringify({ version, fileName, source, contractName, SETTINGS }))
    .digest('hex');
  return path.join(SOLC_CACHE, `${key}.json`);
}

function solcCompile(fileName: string, source: string, contractName: string): CompiledContract {
  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({ language: 'Solidity', sources: { [fileName]: { content: source } }, settings: SETTINGS }),
    ),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const contract = output.contracts[fileName][contractName];
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
