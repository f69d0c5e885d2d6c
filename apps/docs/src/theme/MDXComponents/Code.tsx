import CopyableCode from '@site/src/components/CopyableCode';
import CodeInline from '@theme/CodeInline';
import type { Props } from '@theme/MDXComponents/Code';
import { Children, type ReactNode } from 'react';

/**
 * Inline code, and a plain fallback for a fenced block that reached the browser unhighlighted. Unlike the
 * theme's version it does not import the client-side highlighter (see plugins/remark-static-highlight).
 */
export default function MDXCode(props: Props): ReactNode {
  const parts = Children.toArray(props.children);
  const inline = parts.length > 0 && parts.every((part) => typeof part === 'string' && !part.includes('\n'));
  if (inline) return <CodeInline {...props} />;
  const code = parts.filter((part) => typeof part === 'string').join('');
  return <CopyableCode code={code.replace(/\n$/, '')} language="text" label="code" />;
}
