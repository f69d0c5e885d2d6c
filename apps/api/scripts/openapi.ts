// Writes the OpenAPI document (packages/openapi, @mountain/openapi) and the docs partials derived from the server's
// definitions.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '#api/config/config.ts';
import { generatedFiles } from '#api/openapi/generatedFiles.ts';

for (const [file, content] of generatedFiles()) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
}
