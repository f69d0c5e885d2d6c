import { type ReactNode, useState } from 'react';
import styles from './styles.module.css';

interface Props {
  code: string;
  /** Announced with the copy button, e.g. "request sample". */
  label: string;
  language?: string;
  /** Pre-highlighted, escaped HTML of `code` (made at build time); plain text when absent. */
  html?: string;
}

/**
 * A preformatted sample with a copy button. Docs code blocks come highlighted from the build; the API
 * reference's samples are plain text, as highlighting dozens of them in the browser would cost script time.
 */
export default function CopyableCode({ code, label, language = 'json', html }: Props): ReactNode {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code);
      setCopied(true);
      window.setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className={styles.block}>
      {/* Focusable so keyboard users can scroll long samples (WCAG 2.1.1). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <pre className={styles.pre} data-language={language} tabIndex={0}>
        {html === undefined ? (
          <code>{code}</code>
        ) : (
          // biome-ignore lint/security/noDangerouslySetInnerHtml: escaped highlighter output from our own build
          <code className={`language-${language}`} dangerouslySetInnerHTML={{ __html: html }} />
        )}
      </pre>
      <button type="button" className={styles.copy} onClick={copy} aria-label={`Copy ${label}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
