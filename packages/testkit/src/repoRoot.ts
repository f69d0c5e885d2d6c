import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder: tests read its files and run its scripts from there. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
