// The geometry of a diagram drawn on the server: boxes placed on a grid by the page, arrows between them, labels
// beside the arrows. Nothing is laid out automatically; the page says where each box goes and how each arrow bows.

/** A box at a place of the grid (fractions allowed): a `state` (its name, in code type, the default), a `final` state
 * (double outline), a `step` of a flow (plain text), or a state machine's `start` dot. */
export interface DiagramNode {
  id: string;
  /** Shown in the box (default: `id`). */
  label?: string;
  col: number;
  row: number;
  kind?: 'state' | 'final' | 'step' | 'start';
}

export interface DiagramEdge {
  from: string;
  to: string;
  label?: string;
  /** How far the arrow bows at its middle, in px: positive to the left of its direction, negative to the right. An
   * arrow from a box to itself is a loop above the box. */
  bend?: number;
  /** The label's offset from the arrow's middle, in px. */
  shift?: readonly [number, number];
}

export interface Point {
  x: number;
  y: number;
}

export interface PlacedNode extends Required<DiagramNode> {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedLabel extends Point {
  lines: string[];
}

export interface PlacedEdge {
  path: string;
  label?: PlacedLabel;
}

export interface Layout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  viewBox: { x: number; y: number; width: number; height: number };
}

export const CELL = { width: 180, height: 96 } as const;
/** A state's name is monospaced, 0.6 em a character at 13 px; a step's text is estimated on the wide side. */
const BOX = { height: 34, charWidth: { code: 7.8, text: 6.8 }, padding: 14 } as const;
const START_RADIUS = 7;
/** Labels: 12 px sans-serif, at most `LABEL_WRAP` characters a line; their width is estimated for the bounds. */
export const LABEL = { lineHeight: 15, wrap: 24, charWidth: 6.4 } as const;
const MARGIN = 10;

/** Breaks a label into lines of at most `LABEL.wrap` characters, at spaces. */
export function wrapLabel(text: string, wrap: number = LABEL.wrap): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.length - 1;
    if (last >= 0 && `${lines[last]} ${word}`.length <= wrap) lines[last] = `${lines[last]} ${word}`;
    else lines.push(word);
  }
  return lines;
}

const fmt = (n: number) => Number(n.toFixed(1));

/** Where a ray from the centre of `node` in direction `dir` leaves its outline. */
function exitPoint(node: PlacedNode, dir: Point): Point {
  const length = Math.hypot(dir.x, dir.y);
  const ux = dir.x / length;
  const uy = dir.y / length;
  const t =
    node.kind === 'start'
      ? START_RADIUS
      : Math.min(
          ux === 0 ? Number.POSITIVE_INFINITY : node.width / 2 / Math.abs(ux),
          uy === 0 ? Number.POSITIVE_INFINITY : node.height / 2 / Math.abs(uy),
        );
  return { x: node.x + ux * t, y: node.y + uy * t };
}

function placeNode(node: DiagramNode): PlacedNode {
  const label = node.label ?? node.id;
  const kind = node.kind ?? 'state';
  const start = kind === 'start';
  return {
    id: node.id,
    label,
    col: node.col,
    row: node.row,
    kind,
    x: (node.col + 0.5) * CELL.width,
    y: (node.row + 0.5) * CELL.height,
    width: start ? START_RADIUS * 2 : label.length * BOX.charWidth[kind === 'step' ? 'text' : 'code'] + BOX.padding * 2,
    height: start ? START_RADIUS * 2 : BOX.height,
  };
}

/** Places the boxes, routes the arrows and sizes the drawing. Throws on an arrow to or from a box not declared, so
 * that a page naming one fails its build. */
export function layOut(nodes: readonly DiagramNode[], edges: readonly DiagramEdge[]): Layout {
  const placed = new Map<string, PlacedNode>();
  for (const node of nodes) {
    if (placed.has(node.id)) throw new Error(`diagram: two boxes are called "${node.id}"`);
    placed.set(node.id, placeNode(node));
  }
  const box = (id: string) => {
    const found = placed.get(id);
    if (!found) throw new Error(`diagram: an arrow names "${id}", which is not one of its boxes`);
    return found;
  };
  const extents: Array<{ x0: number; y0: number; x1: number; y1: number }> = [];
  for (const n of placed.values())
    extents.push({ x0: n.x - n.width / 2, y0: n.y - n.height / 2, x1: n.x + n.width / 2, y1: n.y + n.height / 2 });

  const routed = edges.map((edge): PlacedEdge => {
    const from = box(edge.from);
    const to = box(edge.to);
    let path: string;
    let middle: Point;
    if (from === to) {
      const top = from.y - from.height / 2;
      path = `M${fmt(from.x - 16)} ${fmt(top)} C${fmt(from.x - 40)} ${fmt(top - 44)} ${fmt(from.x + 40)} ${fmt(top - 44)} ${fmt(from.x + 16)} ${fmt(top)}`;
      middle = { x: from.x, y: top - 33 };
      extents.push({ x0: from.x - 40, y0: top - 44, x1: from.x + 40, y1: top });
    } else {
      const dx = to.x - from.x;
      const dy = to.y - from.y;
      const length = Math.hypot(dx, dy);
      const bend = edge.bend ?? 0;
      // The control point of a quadratic curve whose middle is `bend` px off the straight line, to its left.
      const control = {
        x: (from.x + to.x) / 2 + (dy / length) * 2 * bend,
        y: (from.y + to.y) / 2 - (dx / length) * 2 * bend,
      };
      const a = exitPoint(from, { x: control.x - from.x, y: control.y - from.y });
      const b = exitPoint(to, { x: control.x - to.x, y: control.y - to.y });
      path =
        bend === 0
          ? `M${fmt(a.x)} ${fmt(a.y)} L${fmt(b.x)} ${fmt(b.y)}`
          : `M${fmt(a.x)} ${fmt(a.y)} Q${fmt(control.x)} ${fmt(control.y)} ${fmt(b.x)} ${fmt(b.y)}`;
      middle = { x: (a.x + 2 * control.x + b.x) / 4, y: (a.y + 2 * control.y + b.y) / 4 };
      extents.push({
        x0: Math.min(a.x, b.x, middle.x),
        y0: Math.min(a.y, b.y, middle.y),
        x1: Math.max(a.x, b.x, middle.x),
        y1: Math.max(a.y, b.y, middle.y),
      });
    }
    if (!edge.label) return { path };
    const lines = wrapLabel(edge.label);
    const x = middle.x + (edge.shift?.[0] ?? 0);
    const y = middle.y + (edge.shift?.[1] ?? 0);
    const halfWidth = (Math.max(...lines.map((l) => l.length)) * LABEL.charWidth) / 2;
    const halfHeight = (lines.length * LABEL.lineHeight) / 2;
    extents.push({ x0: x - halfWidth, y0: y - halfHeight, x1: x + halfWidth, y1: y + halfHeight });
    return { path, label: { x: fmt(x), y: fmt(y), lines } };
  });

  const x0 = Math.min(...extents.map((e) => e.x0)) - MARGIN;
  const y0 = Math.min(...extents.map((e) => e.y0)) - MARGIN;
  const x1 = Math.max(...extents.map((e) => e.x1)) + MARGIN;
  const y1 = Math.max(...extents.map((e) => e.y1)) + MARGIN;
  return {
    nodes: [...placed.values()],
    edges: routed,
    viewBox: { x: fmt(x0), y: fmt(y0), width: Math.ceil(x1 - x0), height: Math.ceil(y1 - y0) },
  };
}
