import CopyableCode from '@site/src/components/CopyableCode';
import Diagram from '@site/src/components/Diagram';
import MDXComponents from '@theme-original/MDXComponents';
import type { ComponentProps, ReactNode } from 'react';

/** Code blocks arrive highlighted from the build (plugins/remark-static-highlight) as `<CodeSample>`. */
function CodeSample({ language, code, html }: { language: string; code: string; html: string }): ReactNode {
  return <CopyableCode code={code} html={html} language={language} label={`${language} code`} />;
}

/**
 * Tables scroll sideways inside their own box on narrow screens. The box is focusable so keyboard users can
 * scroll it too (WCAG 2.1.1).
 */
function Table(props: ComponentProps<'table'>): ReactNode {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-scroll" aria-label="Table" tabIndex={0}>
      <table {...props} />
    </section>
  );
}

/** `<Diagram>` draws a diagram on the server (src/components/Diagram), in any page without an import. */
export default { ...MDXComponents, CodeSample, Diagram, table: Table };
