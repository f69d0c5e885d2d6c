import { readFileSync } from 'node:fs';
import { code, type Env, type VariableDefinition } from './parse.ts';

/**
 * The variables that may be given as a file instead: `<NAME>_FILE` names a file holding the value, as container
 * secrets are mounted (compose.yaml: /run/secrets/…), so the secret is in no process environment, `docker inspect`
 * or crash report.
 */
export const SECRET_FILE_VARIABLES = [
  'MASTER_KEY',
  'MASTER_KEYS',
  'TOKEN_SIGNING_KEY',
  'TOKEN_SIGNING_KEYS',
  'DATABASE_URL',
  'FIREBLOCKS_API_KEY',
  'FIREBLOCKS_SECRET_KEY',
] as const;

/** The secret files' variable, as the configuration reference lists it. */
export const SECRET_FILE_VARIABLE: VariableDefinition = {
  names: ['<NAME>_FILE'],
  default: '—',
  meaning:
    `For ${SECRET_FILE_VARIABLES.map(code).join(', ')}: a file holding the value (its trailing newline removed), ` +
    'as container secrets are mounted (compose.yaml: `/run/secrets/…`), so the secret is in no environment. ' +
    'Setting both `<NAME>` and `<NAME>_FILE` is refused at start.',
};

/**
 * The environment with each `<NAME>_FILE` of SECRET_FILE_VARIABLES read into `<NAME>` (trailing white space, such
 * as the newline an editor adds, removed). Both set, or a file that cannot be read, is a problem naming the
 * variable and the path, never the value.
 */
export function readSecretFiles(env: Env, problems: string[]): Env {
  const out: Env = { ...env };
  for (const name of SECRET_FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name]) {
      problems.push(`set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      out[name] = readFileSync(file, 'utf8').trimEnd();
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return out;
}
