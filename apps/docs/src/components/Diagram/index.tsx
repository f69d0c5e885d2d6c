import type { ReactNode } from 'react';
import { type DiagramEdge, type DiagramNode, LABEL, layOut } from './layout';
import styles from './styles.module.css';

interface Props {
  /** What the diagram shows: its accessible name, and the prefix of its ids (unique on a page). */
  title: string;
  nodes: readonly DiagramNode[];
  edges: readonly DiagramEdge[];
  /** Number the labelled arrows and list their labels under the drawing, for a diagram whose labels would not fit
   * beside its arrows. */
  legend?: boolean;
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/**
 * A diagram drawn on the server as SVG: in the page's HTML, with no script. Every arrow is also said in words: in its
 * description, read out in place of the drawing ("created to processing: gas estimated, nonce allocated"), and with
 * `legend`, in the numbered list under it. Too wide for a narrow screen, it scrolls sideways in its own box rather
 * than shrinking its text.
 */
export default function Diagram({ title, nodes, edges, legend = false }: Props): ReactNode {
  const { nodes: boxes, edges: arrows, viewBox } = layOut(nodes, edges);
  const id = `diagram-${slug(title)}`;
  const startId = nodes.find((n) => n.kind === 'start')?.id;
  const name = (nodeId: string) => (nodeId === startId ? 'start' : nodeId);
  const said = edges.map(
    (e) => `${name(e.from)} to ${e.to === e.from ? 'itself' : name(e.to)}${e.label ? `: ${e.label}` : ''}`,
  );
  // The labelled arrows' numbers, in the legend's order.
  let labelled = 0;
  const numbers = arrows.map((a) => (a.label ? ++labelled : 0));
  const drawing = (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className={styles.diagram} aria-label={`Diagram: ${title}`} tabIndex={0}>
      <svg
        role="img"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-desc`}
        width={viewBox.width}
        height={viewBox.height}
        viewBox={`${viewBox.x} ${viewBox.y} ${viewBox.width} ${viewBox.height}`}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{said.join('; ')}.</desc>
        <defs>
          <marker
            id={`${id}-arrow`}
            viewBox="0 0 10 10"
            refX="10"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M0 0L10 5L0 10z" className={styles.arrowHead} />
          </marker>
        </defs>
        {arrows.map((arrow) => (
          <path key={arrow.path} d={arrow.path} className={styles.arrow} markerEnd={`url(#${id}-arrow)`} />
        ))}
        {boxes.map((box) =>
          box.kind === 'start' ? (
            <circle key={box.id} cx={box.x} cy={box.y} r={box.width / 2} className={styles.start} />
          ) : (
            <g key={box.id}>
              {box.kind === 'final' && (
                <rect
                  x={box.x - box.width / 2 - 3}
                  y={box.y - box.height / 2 - 3}
                  width={box.width + 6}
                  height={box.height + 6}
                  rx="9"
                  className={styles.outline}
                />
              )}
              <rect
                x={box.x - box.width / 2}
                y={box.y - box.height / 2}
                width={box.width}
                height={box.height}
                rx="6"
                className={styles.box}
              />
              <text x={box.x} y={box.y} className={box.kind === 'step' ? styles.stepText : styles.stateText}>
                {box.label}
              </text>
            </g>
          ),
        )}
        {arrows.map(({ label, path }, index) => {
          if (!label) return null;
          if (legend)
            return (
              <g key={`${path}-label`}>
                <circle cx={label.x} cy={label.y} r="9" className={styles.marker} />
                <text x={label.x} y={label.y} className={styles.markerText}>
                  {numbers[index]}
                </text>
              </g>
            );
          return (
            <text key={`${path}-label`} x={label.x} y={label.y} className={styles.label}>
              {label.lines.map((line, i) => (
                <tspan
                  key={`${i}:${line}`}
                  x={label.x}
                  y={label.y + (i - (label.lines.length - 1) / 2) * LABEL.lineHeight}
                >
                  {line}
                </tspan>
              ))}
            </text>
          );
        })}
      </svg>
    </section>
  );
  if (!legend) return drawing;
  return (
    <figure className={styles.figure}>
      {drawing}
      <figcaption>
        <ol className={styles.legend}>
          {edges.flatMap((e, index) =>
            e.label
              ? [
                  <li key={said[index]}>
                    <code>{name(e.from)}</code> → <code>{name(e.to)}</code>: {e.label}
                  </li>,
                ]
              : [],
          )}
        </ol>
      </figcaption>
    </figure>
  );
}
