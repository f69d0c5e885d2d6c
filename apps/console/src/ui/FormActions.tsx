/** A form's buttons: submit (off while the call is on its way) and Cancel. */
export function FormActions({ submit, pending, onCancel }: { submit: string; pending: boolean; onCancel: () => void }) {
  return (
    <div className="row">
      <button type="submit" className="primary" disabled={pending}>
        {submit}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
