import type { ContractActivatedFunction } from '@mountain/public-api-client';
import { Link } from '@tanstack/react-router';
import { formatLimit } from '../ui/wei.ts';
import { isReadOnly } from './abiText.ts';

/**
 * One callable entry of a contract's ABI: its state, the value it may send (a payable one's spending limits), and
 * for writers activate or deactivate, the limits and the execute link. A payable entry is activated through the
 * limits dialog; a view or pure one is read (the Read panel), never activated.
 */
export function FunctionRow({
  contractId,
  signature,
  active,
  mutability,
  coin,
  canWrite,
  pending,
  onSetActive,
  onLimits,
}: {
  contractId: number;
  signature: string;
  active: ContractActivatedFunction | undefined;
  mutability: string | undefined;
  coin: string;
  canWrite: boolean;
  pending: boolean;
  onSetActive: (active: boolean) => void;
  onLimits: () => void;
}) {
  const payable = mutability === 'payable';
  const readOnly = isReadOnly(mutability);
  return (
    <tr>
      <td className="mono">{signature}</td>
      <td>
        {active ? <span className="badge status-succeeded">active</span> : <span className="muted">inactive</span>}
      </td>
      <td>
        {readOnly && <span className="muted">read only ({mutability})</span>}
        {!payable && !readOnly && <span className="muted">not payable</span>}
        {payable && !active && <span className="muted">payable</span>}
        {payable && active && (
          <ul className="plain">
            <li>Per transaction: {formatLimit(active.maxValuePerTransaction, coin)}</li>
            <li>Per day: {formatLimit(active.maxValuePerDay, coin)}</li>
          </ul>
        )}
      </td>
      <td>
        <div className="row">
          {canWrite && (active || !readOnly) && (
            <button
              type="button"
              disabled={pending}
              onClick={() => (payable && !active ? onLimits() : onSetActive(!active))}
              aria-label={`${active ? 'Deactivate' : 'Activate'} ${signature}`}
            >
              {active ? 'Deactivate' : payable ? 'Activate…' : 'Activate'}
            </button>
          )}
          {canWrite && payable && active && (
            <button type="button" onClick={onLimits} aria-label={`Change the limits of ${signature}`}>
              Limits…
            </button>
          )}
          {canWrite && active && (
            <Link
              className="button"
              to="/execute/$functionId"
              params={{ functionId: String(active.id) }}
              search={{ contractId }}
              aria-label={`Execute ${signature}`}
            >
              Execute
            </Link>
          )}
        </div>
      </td>
    </tr>
  );
}
