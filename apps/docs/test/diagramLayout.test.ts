// The geometry of the docs' server-drawn diagrams (src/components/Diagram/layout.ts), without a browser.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CELL, layOut, wrapLabel } from '../src/components/Diagram/layout.ts';

describe('diagram layout', () => {
  test('an arrow naming a box that is not declared fails, naming it', () => {
    assert.throws(
      () => layOut([{ id: 'created', col: 0, row: 0 }], [{ from: 'created', to: 'procesing' }]),
      /"procesing", which is not one of its boxes/,
    );
    assert.throws(
      () =>
        layOut(
          [
            { id: 'a', col: 0, row: 0 },
            { id: 'a', col: 1, row: 0 },
          ],
          [],
        ),
      /two boxes are called "a"/,
    );
  });

  test('a straight arrow runs from the edge of one box to the edge of the other', () => {
    const { nodes, edges } = layOut(
      [
        { id: 'created', col: 0, row: 0 },
        { id: 'processing', col: 0, row: 1 },
      ],
      [{ from: 'created', to: 'processing', label: 'gas estimated' }],
    );
    const [created, processing] = nodes;
    assert.ok(created && processing);
    const x = CELL.width / 2;
    assert.equal(
      edges[0]?.path,
      `M${x} ${created.y + created.height / 2} L${x} ${processing.y - processing.height / 2}`,
    );
    assert.deepEqual(edges[0]?.label, { x, y: CELL.height, lines: ['gas estimated'] });
  });

  test('a bent arrow bows to the left of its direction; the drawing holds every box and label', () => {
    const nodes = [
      { id: 'a', col: 0, row: 0 },
      { id: 'b', col: 0, row: 1 },
    ];
    const left = layOut(nodes, [{ from: 'a', to: 'b', bend: 20, label: 'down' }]);
    const right = layOut(nodes, [{ from: 'a', to: 'b', bend: -20, label: 'down' }]);
    // Going down the page, its left is +x.
    const middle = CELL.width / 2;
    assert.ok((left.edges[0]?.label?.x ?? 0) > middle + 15, JSON.stringify(left.edges[0]));
    assert.ok((right.edges[0]?.label?.x ?? 0) < middle - 15, JSON.stringify(right.edges[0]));
    assert.match(left.edges[0]?.path ?? '', / Q/);
    const { x, width } = left.viewBox;
    assert.ok(x < middle && x + width > (left.edges[0]?.label?.x ?? 0) + 12, JSON.stringify(left.viewBox));
  });

  test('labels break at spaces, a word longer than a line on its own', () => {
    assert.deepEqual(wrapLabel('nonce taken by another sender, base fee above the fees', 24), [
      'nonce taken by another',
      'sender, base fee above',
      'the fees',
    ]);
    assert.deepEqual(wrapLabel('resend-failed-webhook-of-a-long-name', 10), ['resend-failed-webhook-of-a-long-name']);
  });
});
