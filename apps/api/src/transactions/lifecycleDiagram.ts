import { TRANSITIONS, type TransactionStatus } from './transitionTable.ts';

/**
 * The docs' lifecycle diagram and table of transitions (apps/docs, `<Diagram>`), drawn from TRANSITIONS: one arrow
 * per (from, to), its label the causes of that move in words. Only where each box sits and how each arrow bows is
 * said here; a status or a move missing from the layout fails, so a new transition cannot go undrawn.
 */

const START = 'start';

/** Where each box sits (columns and rows of the diagram's grid), and which are final. */
const BOXES: Record<TransactionStatus, { col: number; row: number; final?: true }> = {
  created: { col: 1, row: 1 },
  processing: { col: 1, row: 2.2 },
  broadcasted: { col: 1, row: 3.4 },
  reverted: { col: 0.1, row: 4.7, final: true },
  succeeded: { col: 1.9, row: 4.7, final: true },
  'broadcast-failed': { col: 2.6, row: 1.6, final: true },
  'monitor-failed': { col: 2.6, row: 3.4, final: true },
  cancelling: { col: 1, row: 5.9 },
  cancelled: { col: -0.6, row: 5.9, final: true },
};

/** How far an arrow bows (to the left of its direction), by `from→to`; straight when absent. */
const BENDS: Record<string, number> = {
  'created→processing': 16,
  'processing→created': 16,
  'created→reverted': -75,
  'broadcasted→succeeded': 14,
  'succeeded→broadcasted': 14,
  'broadcasted→reverted': 14,
  'reverted→broadcasted': 14,
  'created→cancelled': -60,
  'processing→cancelled': -35,
  'broadcasted→cancelling': -40,
  'cancelling→broadcasted': -40,
  'cancelling→succeeded': 14,
  'succeeded→cancelling': 14,
  'cancelling→reverted': 14,
  'reverted→cancelling': 14,
  'cancelling→cancelled': 14,
  'cancelled→cancelling': 14,
  'cancelling→monitor-failed': 40,
};

const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The arrows: one per (from, to), in the order of the table, with their causes' words joined. */
export function lifecycleEdges(): { from: string; to: string; label: string; bend?: number }[] {
  const edges = new Map<string, { from: string; to: string; says: string[] }>();
  for (const t of TRANSITIONS) {
    const from = t.from ?? START;
    const key = `${from}→${t.to}`;
    const edge = edges.get(key) ?? { from, to: t.to, says: [] };
    if (!edge.says.includes(t.says)) edge.says.push(t.says);
    edges.set(key, edge);
  }
  return [...edges.entries()].map(([key, e]) => ({
    from: e.from,
    to: e.to,
    label: e.says.join('; '),
    ...(BENDS[key] === undefined ? {} : { bend: BENDS[key] }),
  }));
}

/** The MDX partial: the diagram, then every transition with its cause and the webhook event it writes. */
export function lifecycleMdx(): string {
  const statuses = new Set(TRANSITIONS.flatMap((t) => (t.from ? [t.from, t.to] : [t.to])));
  for (const status of statuses) if (!BOXES[status]) throw new Error(`no box for status ${status}`);
  const nodes = [
    `    { id: '${START}', kind: 'start', col: 1, row: 0 },`,
    ...Object.entries(BOXES).map(
      ([id, b]) => `    { id: ${quote(id)},${b.final ? " kind: 'final'," : ''} col: ${b.col}, row: ${b.row} },`,
    ),
  ];
  const edges = lifecycleEdges().map(
    (e) =>
      `    { from: ${quote(e.from)}, to: ${quote(e.to)}, label: ${quote(e.label)}${e.bend === undefined ? '' : `, bend: ${e.bend}`} },`,
  );
  const rows = TRANSITIONS.map(
    (t) =>
      `| ${t.from ? `\`${t.from}\`` : '(new)'} | \`${t.to}\` | ${cell(t.says)} | \`${t.cause}\` | ${t.emits ? `\`${t.emits}\`` : 'none'} |`,
  );
  return [
    '<Diagram',
    '  title="A transaction’s statuses and what moves it between them"',
    '  legend',
    '  nodes={[',
    ...nodes,
    '  ]}',
    '  edges={[',
    ...edges,
    '  ]}',
    '/>',
    '',
    'A double outline marks a final status. Every change of status is one of these, and no other:',
    '',
    '| From | To | Why | Cause | Webhook event |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
