import type { Db } from '#api/db/db.ts';
import type { CustodianView } from '#api/wallets/custody.ts';
import { recordCustodianView } from './lifecycle.ts';

/**
 * Records what a custodian says of a row's transaction (a poll, a webhook, a create's answer), in one statement
 * (lifecycle.ts, recordCustodianView):
 * - always: the custodian's id, status and sub-status (shown in the transaction's `custody`);
 * - a hash while `processing`: the row is `broadcasted` under it, and from then on the chain decides;
 * - a hash other than the row's while `broadcasted` (the custodian sped it up or replaced it): the new hash is
 *   followed too (a receipt of any of them settles the row);
 * - a failure before any hash: `broadcast-failed`, with the custodian's status and sub-status in `errorMessage`.
 * A failure after a hash, and every success, is left to the chain (see followCustodian). A view older than one
 * already applied (by the custodian's own clock: a webhook retried late) leaves the shown status as it is. A view of another
 * custodian transaction than the row's (a stale webhook of an earlier attempt) changes nothing. Answers the row's
 * status after the change, and whether it moved (a new status or hash), or undefined when the row was not touched.
 * The row is not locked first: a view applied at the same moment by another process may make both say `moved`,
 * which only wakes the monitor once more.
 */
export async function applyCustodianView(
  db: Pick<Db, 'query'>,
  rowId: string,
  provider: string,
  view: CustodianView,
): Promise<{ status: string; moved: boolean; walletId: number; networkId: number } | undefined> {
  return recordCustodianView(db, rowId, provider, view);
}

type Applied = Awaited<ReturnType<typeof applyCustodianView>>;

/** A statement to come for one row: the view it will apply (the newest merged into it), and what it did. */
interface Pending {
  view: CustodianView;
  started: boolean;
  done: Promise<{ applied: Applied; view: CustodianView }>;
}

/**
 * applyCustodianView for views that come in bursts (a custodian's webhooks: one per step, often several within a few
 * milliseconds, QUEUED, PENDING_SIGNATURE, BROADCASTING…): one statement at a time per row, and the views that pile
 * up behind it with the same custodian transaction and hash are applied as one, the newest by the custodian's clock.
 * Each caller's promise settles once a statement that covered its view has committed, with what it did and the view
 * it applied. A view with another hash is applied on its own, in its turn: every hash a custodian reported is
 * followed.
 */
export function createViewApplier(db: Pick<Db, 'query'>, provider: string) {
  /** Per row, the last statement asked for, while it has not ended. */
  const last = new Map<string, Pending>();
  return (rowId: string, view: CustodianView): Promise<{ applied: Applied; view: CustodianView }> => {
    const before = last.get(rowId);
    if (before && !before.started && before.view.id === view.id && before.view.hash === view.hash) {
      const older = before.view.updatedMs;
      if (view.updatedMs === null || older === null || view.updatedMs >= older) before.view = view;
      return before.done;
    }
    const pending = { view, started: false } as Pending;
    pending.done = (before?.done.catch(() => undefined) ?? Promise.resolve())
      .then(() => {
        pending.started = true;
        return applyCustodianView(db, rowId, provider, pending.view);
      })
      .then((applied) => ({ applied, view: pending.view }));
    last.set(rowId, pending);
    pending.done
      .catch(() => undefined)
      .finally(() => {
        if (last.get(rowId) === pending) last.delete(rowId);
      });
    return pending.done;
  };
}
