import type { NetworkId, SystemWallet } from '@mountain/public-api-client';
import { explorerUrl, NETWORKS, networkName } from '../networks/networks.ts';
import { CopyButton } from '../ui/CopyButton.tsx';
import { formatBalance } from '../ui/wei.ts';
import { useWalletBalances } from './useProject.ts';

/**
 * One system wallet: address, how its key is kept (custody), network type, owner type, and on each network its
 * balance (a warning when it is under the low-balance threshold) and its transactions in flight and waiting.
 */
export function WalletCard({ title, wallet, primary }: { title: string; wallet: SystemWallet; primary: boolean }) {
  return (
    <section className="card" aria-labelledby={`wallet-${wallet.id}`}>
      <h4 id={`wallet-${wallet.id}`} className="wallet-title">
        {title} {primary && <span className="badge">primary</span>}
      </h4>
      <dl className="facts">
        <dt>Address</dt>
        <dd>
          <span className="mono">{wallet.address}</span> <CopyButton value={wallet.address} what={`${title} address`} />
        </dd>
        <dt>Type</dt>
        <dd>{wallet.type}</dd>
        <dt>Custody</dt>
        <dd>{custodyOf(wallet.custody)}</dd>
        <dt>Network</dt>
        <dd>{wallet.networkType}</dd>
        <dt>Owner</dt>
        <dd>{wallet.ownerType === 'dedicated' ? 'dedicated to this project' : 'shared with other projects'}</dd>
        <Networks walletId={wallet.id} />
      </dl>
    </section>
  );
}

/**
 * The wallet's native coin on each network of its type this deployment reads (or why one could not be read), and
 * its transactions there: sent and not mined (in flight), accepted and not sent yet (waiting).
 */
function Networks({ walletId }: { walletId: number }) {
  const balances = useWalletBalances();
  if (balances.isPending || balances.isError) {
    return (
      <>
        <dt>Balance</dt>
        <dd>
          {balances.isPending ? (
            <span className="muted">reading…</span>
          ) : (
            <span className="field-error">could not be read</span>
          )}
        </dd>
      </>
    );
  }
  const mine = balances.data.balances
    .filter((b) => b.systemWalletId === walletId)
    .map((b) => ({
      ...b,
      name: networkName(b.networkId),
      link: explorerUrl(b.networkId, 'address', b.address),
      coin: NETWORKS[b.networkId as NetworkId]?.coin ?? '',
    }));
  if (mine.length === 0) {
    return (
      <>
        <dt>Balance</dt>
        <dd>
          <span className="muted">no network of this type is configured here</span>
        </dd>
      </>
    );
  }
  return (
    <>
      <dt>Balance</dt>
      <dd>
        <ul className="plain">
          {mine.map((b) => (
            <li key={b.networkId}>
              <span>
                {b.balance === null ? (
                  <span className="field-error">{b.error}</span>
                ) : (
                  <span title={`${b.balance} wei`}>{formatBalance(b.balance, b.coin)}</span>
                )}{' '}
                on {b.link ? <a href={b.link}>{b.name}</a> : b.name}
              </span>
              {b.low && b.lowBalanceThreshold !== null && (
                <output className="notice warning">
                  <strong>Low balance:</strong> under {formatBalance(b.lowBalanceThreshold, b.coin)} — fund this wallet
                </output>
              )}
            </li>
          ))}
        </ul>
      </dd>
      <dt>Transactions</dt>
      <dd>
        <ul className="plain">
          {mine.map((b) => (
            <li key={b.networkId}>
              {b.inFlight} in flight, {b.waiting} waiting on {b.name}
            </li>
          ))}
        </ul>
      </dd>
    </>
  );
}

/** Where the wallet's key is kept, as its custodian names it. */
function custodyOf(custody: SystemWallet['custody']): string {
  if (!custody) return 'keys derived by the platform (from-mnemonic)';
  if (custody.provider === 'fireblocks') return `Fireblocks, vault account ${custody.vaultAccountId}`;
  return `AWS KMS, key ${custody.keyArn}`;
}
