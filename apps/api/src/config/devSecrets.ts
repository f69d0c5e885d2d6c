// DATA_DIR/secrets.json: the secrets development generates once and keeps (the master key, the token signing key,
// the embedded PostgreSQL's password), readable by its owner only. Several parts add to it, each its own names.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const DEV_SECRETS_FILE = 'secrets.json';

type Stored = Record<string, unknown>;

/** What `dataDir`'s secrets file holds; nothing when there is no file. */
export function readDevSecrets(dataDir: string): Stored {
  const file = path.join(dataDir, DEV_SECRETS_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Stored) : {};
}

/**
 * The secrets of `dataDir` named in `generate`: each one the file holds, or else made by its generator and written
 * to the file (mode 0600, replaced whole so that no reader sees half of it), beside what the file already held.
 */
export function keepDevSecrets<K extends string>(
  dataDir: string,
  generate: Readonly<Record<K, () => string>>,
): Record<K, string> {
  const stored = readDevSecrets(dataDir);
  const missing = (Object.keys(generate) as K[]).filter((name) => typeof stored[name] !== 'string');
  if (missing.length > 0) {
    for (const name of missing) stored[name] = generate[name]();
    mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, DEV_SECRETS_FILE);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  }
  return stored as Record<K, string>;
}
