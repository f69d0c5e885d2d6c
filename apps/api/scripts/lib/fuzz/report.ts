import type { OperationResult } from './run.ts';

/** The per-operation table and, below it, the failures (at most `limit`). */
export function formatReport(results: OperationResult[], limit = 40): string {
  const header = [
    'operation',
    'cases',
    'invalid',
    'edge',
    'valid',
    'valid 2xx',
    '2xx',
    '4xx',
    'other',
    'RPC calls',
    'failures',
  ];
  const rows = results.map((r) => [
    r.operationId,
    r.cases,
    r.byKind.invalid,
    r.byKind.edge,
    r.byKind.valid,
    r.validSucceeded,
    r.answers['2xx'],
    r.answers['4xx'],
    r.answers.other,
    r.chainCalls,
    r.failures.length,
  ]);
  const total = (i: number) => rows.reduce((s, r) => s + Number(r[i]), 0);
  rows.push(['total', ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(total)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) =>
    cells
      .map((c, i) => (i === 0 ? String(c).padEnd(widths[i] as number) : String(c).padStart(widths[i] as number)))
      .join('  ');
  const out = [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)];
  const failures = results.flatMap((r) => r.failures);
  if (failures.length > 0) {
    out.push('', `Failures (${failures.length}${failures.length > limit ? `, first ${limit}` : ''}):`);
    for (const f of failures.slice(0, limit)) {
      out.push(`- ${f.operationId} [${f.kind}] ${f.what}: ${f.problem}`);
      out.push(`    request: ${JSON.stringify(f.request).slice(1, -1)}`);
      if (f.status !== undefined) out.push(`    answer ${f.status}: ${JSON.stringify(f.answer ?? '').slice(1, -1)}`);
    }
  }
  return out.join('\n');
}
