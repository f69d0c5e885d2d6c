import { useState } from 'react';

/** Copies a value shown shortened (a hash, an address, an id) to the clipboard; says so for a moment. */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy"
      aria-label={`Copy ${what}`}
      title={`Copy ${what}`}
      onClick={() =>
        void navigator.clipboard?.writeText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1_500);
        })
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}
