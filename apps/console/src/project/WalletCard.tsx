import type { NetworkId, SystemWallet } from '@mountain/public-api-client';
import { explorerUrl, NETWORKS, networkName } from '../networks/networks.ts';
import { CopyButton } from '../ui/CopyButton.tsx';
import { formatBalance } from '../ui/wei.ts';
import { useWalletBalances } from './useProject.ts';

/** One system wallet: address, how its key is kept (custody), network type, owner type and balances. */
export function WalletCard({ title, wallet }: { title: string; wallet: SystemWallet }) {
  return (
    <section className="card" aria-labelledby={`wallet-${wallet.id}`}>
      <h3 id={`wallet-${wallet.id}`}>{title}</h3>
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
        <dt>Balance</dt>
        <dd>
          <Balances walletId={wallet.id} />
        </dd>
      </dl>
    </section>
  );
}

/** The wallet's native coin on each network of its type this deployment reads, or why one could not be read. */
function Balances({ walletId }: { walletId: number }) {
  const balances = useWalletBalances();
  if (balances.isPending) return <span className="muted">reading…</span>;
  if (balances.isError) return <span className="field-error">could not be read</span>;
  const mine = balances.data.balances.filter((b) => b.systemWalletId === walletId);
  if (mine.length === 0) return <span className="muted">no network of this type is configured here</span>;
  return (
    <ul className="plain">
      {mine.map((b) => {
        const link = explorerUrl(b.networkId, 'address', b.address);
        const name = networkName(b.networkId);
        return (
          <li key={b.networkId}>
            {b.balance === null ? (
              <span className="field-error">{b.error}</span>
            ) : (
              <span title={`${b.balance} wei`}>
                {formatBalance(b.balance, NETWORKS[b.networkId as NetworkId]?.coin ?? '')}
              </span>
            )}{' '}
            on {link ? <a href={link}>{name}</a> : name}
          </li>
        );
      })}
    </ul>
  );
}

/** Where the wallet's key is kept, as its custodian names it. */
function custodyOf(custody: SystemWallet['custody']): string {
  if (!custody) return 'keys derived by the platform (from-mnemonic)';
  if (custody.provider === 'fireblocks') return `Fireblocks, vault account ${custody.vaultAccountId}`;
  return `AWS KMS, key ${custody.keyArn}`;
}
