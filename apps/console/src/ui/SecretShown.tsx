import { DoneNotice } from './DoneNotice.tsx';

/** A secret the API shows in full this once: with what it is for, and the button that closes the dialog. */
export function SecretShown({ lead, secret, onDone }: { lead: string; secret: string; onDone: () => void }) {
  return (
    <DoneNotice onDone={onDone}>
      <p>{lead}</p>
      <code>{secret}</code>
    </DoneNotice>
  );
}
