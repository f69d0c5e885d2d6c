// The fenced blocks of the docs pages as a reader copies them: found by the tag in their fence (`run=<id>`; see
// "Executable samples" in apps/docs/README.md), read from the Markdown sources.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../apps/api/src/config/config.ts';

/** The code of the block of `page` (under apps/docs/docs) tagged `run=<id>`, in language `lang`. */
export function docsBlock(page: string, lang: string, id: string): string {
  const text = readFileSync(path.join(REPO_ROOT, 'apps/docs/docs', page), 'utf8');
  const block = new RegExp(`^\`\`\`${lang} run=${id}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(text);
  if (!block) throw new Error(`${page} has no ${lang} block tagged run=${id}`);
  return block[1] as string;
}
