/** A secret the API shows in full this once: with what it is for, and the button that closes the dialog. */
export function SecretShown({ lead, secret, onDone }: { lead: string; secret: string; onDone: () => void }) {
  return (
    <div className="notice success" aria-live="polite">
      <p>{lead}</p>
      <code>{secret}</code>
      <p>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
  );
}
