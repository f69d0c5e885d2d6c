import type { ResponseBody, Transaction } from '@mountain/public-api-client';
import { explorerUrl } from '../networks/networks.ts';
import { formatTime } from '../ui/format.ts';

type Reorg = ResponseBody<'get-transaction'>['reorgs'][number];

interface Step {
  key: string;
  title: string;
  detail?: React.ReactNode;
  done: boolean;
}

/**
 * A transaction's lifecycle as the API tells it now: accepted, the custodian's steps, broadcast, each block that held
 * it and left the chain (a reorg), mined again (and how deep), finalized, or where it failed.
 */
export function timelineOf(t: Transaction, reorgs: Reorg[] = []): Step[] {
  const steps: Step[] = [{ key: 'accepted', title: 'Accepted', detail: formatTime(t.createdAt), done: true }];
  if (t.custody) {
    steps.push({
      key: 'custody',
      title: `Custodian (${t.custody.provider})`,
      detail: [t.custody.status ?? 'not taken yet', t.custody.subStatus].filter(Boolean).join(' · '),
      done: t.custody.id !== null,
    });
  }
  const failed = t.status === 'broadcast-failed' || t.status === 'monitor-failed';
  steps.push({
    key: 'broadcast',
    title: t.transactionHash ? 'Broadcast' : failed ? 'Not broadcast' : 'Waiting to be broadcast',
    detail: t.transactionHash ? <HashLink t={t} /> : undefined,
    done: Boolean(t.transactionHash),
  });
  reorgs.forEach((r, i) => {
    steps.push({
      key: `reorg-${i}`,
      title: `Mined in block ${r.blockNumber}, taken back by a reorg`,
      detail: `${formatTime(r.reorgedAt)}: the block left the canonical chain`,
      done: true,
    });
  });
  const again = reorgs.length > 0 ? 'Mined again' : 'Mined';
  if (t.blockNumber !== null && t.blockNumber !== undefined) {
    const block = explorerUrl(t.networkId, 'block', t.blockNumber);
    steps.push({
      key: 'mined',
      title:
        t.status === 'reverted'
          ? `${again}, reverted`
          : t.status === 'cancelled'
            ? `${again}: its cancelling transfer`
            : again,
      detail: (
        <>
          in block{' '}
          {block ? (
            <a href={block} target="_blank" rel="noreferrer">
              {t.blockNumber}
            </a>
          ) : (
            t.blockNumber
          )}
          {t.confirmations !== null && t.confirmations !== undefined ? `, ${t.confirmations} confirmations` : ''}
        </>
      ),
      done: true,
    });
  } else if (t.transactionHash && !failed) {
    steps.push({ key: 'mined', title: 'Waiting to be mined (or re-mined after a reorg)', done: false });
  }
  if (failed)
    steps.push({ key: 'failed', title: `Failed (${t.status})`, detail: t.errorMessage ?? undefined, done: true });
  else if (t.status === 'cancelled' && t.blockNumber === null) {
    steps.push({
      key: 'cancelled',
      title: 'Cancelled before it was sent',
      detail: t.errorMessage ?? undefined,
      done: true,
    });
  } else if (t.status === 'succeeded' || t.status === 'reverted' || t.status === 'cancelled') {
    steps.push({
      key: 'finalized',
      title: t.finalized ? 'Finalized' : 'Waiting for finality',
      detail: t.finalized ? 'it can no longer be taken back by a reorg' : undefined,
      done: Boolean(t.finalized),
    });
  }
  return steps;
}

function HashLink({ t }: { t: Transaction }) {
  const url = t.transactionHash ? explorerUrl(t.networkId, 'tx', t.transactionHash) : undefined;
  return url ? (
    <a href={url} target="_blank" rel="noreferrer" className="mono">
      {t.transactionHash}
    </a>
  ) : (
    <span className="mono">{t.transactionHash}</span>
  );
}

export function Timeline({ transaction, reorgs }: { transaction: Transaction; reorgs: Reorg[] }) {
  return (
    <ol className="timeline" aria-label="Lifecycle">
      {timelineOf(transaction, reorgs).map((step) => (
        <li key={step.key} className={step.done ? 'done' : 'pending'}>
          <strong>{step.title}</strong>
          {step.detail && <div className="muted">{step.detail}</div>}
        </li>
      ))}
    </ol>
  );
}
