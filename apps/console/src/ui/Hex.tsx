import { CopyButton } from './CopyButton.tsx';
import { shortHex } from './format.ts';

/** A long hex value (a hash, an address) shortened to recognise it, never broken across lines, with a copy button. */
export function Hex({ value, what, keep = 6 }: { value: string; what: string; keep?: number }) {
  return (
    <span className="hex">
      <span className="mono" title={value}>
        {shortHex(value, keep)}
      </span>
      <CopyButton value={value} what={what} />
    </span>
  );
}
