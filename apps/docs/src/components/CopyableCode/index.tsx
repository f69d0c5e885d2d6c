import { type ReactNode, useState } from 'react';
import styles from './styles.module.css';

interface Props {
  code: string;
  /** Announced with the copy button, e.g. "request sample". */
  label: string;
  language?: string;
}

/**
 * A preformatted sample with a copy button. Plain text on purpose: the reference has dozens of samples and
 * highlighting each one would cost more script time than it gives.
 */
export default function CopyableCode({ code, label, language = 'json' }: Props): ReactNode {
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
        <code>{code}</code>
      </pre>
      <button type="button" className={styles.copy} onClick={copy} aria-label={`Copy ${label}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
