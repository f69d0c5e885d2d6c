import Link from '@docusaurus/Link';
import type { ReactNode } from 'react';

// OpenAPI descriptions are CommonMark. The generated file only uses paragraphs, bullet lists, code spans,
// bold text and links, so a small renderer covers it without shipping a markdown library to the browser.
const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\[[^\]]+\]\([^)\s]+\))/g;

function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index ?? 0;
    if (index > last) out.push(text.slice(last, index));
    const token = match[0];
    if (token.startsWith('`')) out.push(<code key={index}>{token.slice(1, -1)}</code>);
    else if (token.startsWith('**')) out.push(<strong key={index}>{token.slice(2, -2)}</strong>);
    else {
      const [, label, href] = /^\[([^\]]+)\]\(([^)]+)\)$/.exec(token) ?? [];
      out.push(
        <Link key={index} to={href}>
          {label}
        </Link>,
      );
    }
    last = index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export default function InlineMarkdown({ text, className }: { text?: string; className?: string }): ReactNode {
  if (!text) return null;
  const blocks = text.trim().split(/\n\s*\n/);
  return (
    <div className={className}>
      {blocks.map((block, i) => {
        const lines = block.split('\n');
        const key = `${i}:${block.slice(0, 16)}`;
        if (lines.every((line) => /^\s*[-*] /.test(line))) {
          return (
            <ul key={key}>
              {lines.map((line) => (
                <li key={line}>{inline(line.replace(/^\s*[-*] /, ''))}</li>
              ))}
            </ul>
          );
        }
        return <p key={key}>{inline(lines.join(' '))}</p>;
      })}
    </div>
  );
}
