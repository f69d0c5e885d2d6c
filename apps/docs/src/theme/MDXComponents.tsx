import CopyableCode from '@site/src/components/CopyableCode';
import MDXComponents from '@theme-original/MDXComponents';
import type { ReactNode } from 'react';

/** Code blocks arrive highlighted from the build (plugins/remark-static-highlight) as `<CodeSample>`. */
function CodeSample({ language, code, html }: { language: string; code: string; html: string }): ReactNode {
  return <CopyableCode code={code} html={html} language={language} label={`${language} code`} />;
}

export default { ...MDXComponents, CodeSample };
