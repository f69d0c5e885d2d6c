import type { Transaction } from '@mountain/public-api-client';
import { useState } from 'react';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { useCancelTransaction } from './useTransactions.ts';

/** Whether the console offers to cancel the transaction: not mined and not ended (a custodian's too). */
export function cancellable(t: Transaction): boolean {
  if (t.blockNumber !== null) return false;
  return t.status === 'created' || t.status === 'processing' || t.status === 'broadcasted';
}

/**
 * Cancel, for a transaction not mined yet: one click asks, a second confirms; then what the cancel does, until the
 * transaction ends (the page refreshes while it is not final).
 */
export function CancelControl({ transaction: t }: { transaction: Transaction }) {
  const [confirming, setConfirming] = useState(false);
  const cancel = useCancelTransaction(t.id);
  const under = t.status === 'cancelling';
  if (!cancellable(t) && !under && !cancel.isSuccess) return null;
  return (
    <section className="card" aria-labelledby="tx-cancel">
      <h2 id="tx-cancel">Cancel</h2>
      {cancel.isError && <ErrorNotice error={cancel.error} />}
      {under && (
        <output className="notice">
          Being cancelled: a 0-value transfer to the wallet itself was sent at nonce {t.nonce ?? '—'}. Whichever of the
          two the chain mines decides; this page refreshes until then.
        </output>
      )}
      {t.status === 'cancelled' && (
        <output className="notice success">Cancelled: {t.errorMessage ?? 'its call never ran'}.</output>
      )}
      {cancel.isSuccess && !under && t.status !== 'cancelled' && (
        <output className="notice">{t.errorMessage ?? `The cancel is under way (${t.status}).`}</output>
      )}
      {cancellable(t) && (
        <div className="row">
          <p className="muted">
            {t.status === 'created'
              ? 'Not sent yet: cancelling it now means it is never sent.'
              : 'Sent, not mined: a 0-value transfer to the wallet itself, with higher fees, is sent at its nonce.'}
          </p>
          {confirming ? (
            <>
              <button
                type="button"
                className="danger"
                disabled={cancel.isPending}
                onClick={() =>
                  cancel.mutateAsync().then(
                    () => setConfirming(false),
                    () => {},
                  )
                }
              >
                Yes, cancel it
              </button>
              <button type="button" onClick={() => setConfirming(false)} disabled={cancel.isPending}>
                Keep it
              </button>
            </>
          ) : (
            <button type="button" onClick={() => setConfirming(true)}>
              Cancel transaction
            </button>
          )}
        </div>
      )}
    </section>
  );
}
