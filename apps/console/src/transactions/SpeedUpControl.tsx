import type { Transaction } from '@mountain/public-api-client';
import { type FormEvent, useState } from 'react';
import { fieldErrorsOf, otherErrors } from '../api/errors.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { useSpeedUpTransaction } from './useTransactions.ts';

export const DEFAULT_FEE_MULTIPLIER = '1.5';

/** The multiplier typed in, if it is one the API takes (1.1 to 10); else what is wrong with it. */
export function feeMultiplierOf(text: string): number | string {
  const typed = text.trim();
  const n = Number(typed);
  if (typed === '' || !/^\d+(\.\d+)?$/.test(typed) || !Number.isFinite(n)) return 'A number, such as 1.5';
  return n < 1.1 || n > 10 ? 'A multiplier from 1.1 to 10' : n;
}

/**
 * A broadcast transaction not mined yet, re-signed at its nonce with both fees multiplied: the multiplier and the
 * button while it waits, then what was asked for until its new hash shows (the page refreshes while it is not final).
 */
export function SpeedUpControl({ transaction: t }: { transaction: Transaction }) {
  const [multiplier, setMultiplier] = useState(DEFAULT_FEE_MULTIPLIER);
  const [localError, setLocalError] = useState<string>();
  const [asked, setAsked] = useState<{ hash: string | null; multiplier: number }>();
  const speedUp = useSpeedUpTransaction(t.id);
  const apiErrors = fieldErrorsOf(speedUp.error);
  const unplaced = otherErrors(apiErrors, ['feeMultiplier']);
  const waiting = t.status === 'broadcasted';
  if (!waiting && !asked) return null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = feeMultiplierOf(multiplier);
    setLocalError(typeof parsed === 'string' ? parsed : undefined);
    if (typeof parsed === 'string') return;
    setAsked(undefined);
    await speedUp.mutateAsync(parsed);
    setAsked({ hash: t.transactionHash, multiplier: parsed });
  };
  const replaced = asked && t.transactionHash !== asked.hash;
  return (
    <section className="card" aria-labelledby="tx-speed-up">
      <h2 id="tx-speed-up">Speed up</h2>
      {asked && (
        <output className={`notice${replaced ? ' success' : ''}`}>
          {replaced ? (
            <>
              Re-signed with fees × {asked.multiplier}: the new hash is{' '}
              <span className="mono">{t.transactionHash}</span>. Whichever version the chain mines gives the outcome.
            </>
          ) : (
            <>
              Speed-up asked for (fees × {asked.multiplier}). Waiting for the re-signed transaction: this page refreshes
              until its new hash shows.
            </>
          )}
        </output>
      )}
      {speedUp.isError && Object.keys(apiErrors).length === 0 && <ErrorNotice error={speedUp.error} />}
      {unplaced.length > 0 && (
        <div className="notice error" role="alert">
          {unplaced.join('; ')}
        </div>
      )}
      {waiting && (
        <form onSubmit={(event) => submit(event).catch(() => {})} noValidate aria-label="Speed up the transaction">
          <p className="muted">
            Not mined yet? Re-sign it at the same nonce, with the same call and value, and both fees multiplied.
          </p>
          <Field
            label="Fee multiplier"
            hint="From 1.1 to 10 (1.5 unless changed); never above the network's fee cap."
            error={localError ?? apiErrors.feeMultiplier}
          >
            <input
              value={multiplier}
              onChange={(event) => setMultiplier(event.target.value)}
              inputMode="decimal"
              spellCheck={false}
              autoComplete="off"
              disabled={speedUp.isPending}
            />
          </Field>
          <div className="row">
            <button type="submit" className="primary" disabled={speedUp.isPending}>
              Speed up
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
