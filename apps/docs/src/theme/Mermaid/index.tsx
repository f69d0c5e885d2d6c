import Mermaid from '@theme-original/Mermaid';
import type { ComponentProps, ReactNode } from 'react';
import styles from './styles.module.css';

/**
 * A diagram is drawn in the browser by the runtime, which a page loads on the reader's first interaction
 * (plugins/deferred-runtime): the server-rendered placeholder asks for it as soon as it comes near the viewport.
 */
export default function MermaidOnView(props: ComponentProps<typeof Mermaid>): ReactNode {
  return (
    <div data-needs-runtime className={styles.diagram}>
      <Mermaid {...props} />
    </div>
  );
}
