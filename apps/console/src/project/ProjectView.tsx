import type { SystemWallet } from '@mountain/public-api-client';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { AddWallets } from './AddWallets.tsx';
import { MembersTable } from './MembersTable.tsx';
import { RotateKey } from './RotateKey.tsx';
import { useIsAdmin, useProjectDetail } from './useProject.ts';
import { WalletCard } from './WalletCard.tsx';

export function ProjectView() {
  const detail = useProjectDetail();
  const isAdmin = useIsAdmin();
  return (
    <>
      <h1>Project</h1>
      {detail.isPending && <Loading what="the project" />}
      {detail.isError && <ErrorNotice error={detail.error} onRetry={() => detail.refetch()} />}
      {detail.data && (
        <>
          <dl className="facts card">
            <dt>Name</dt>
            <dd>{detail.data.data.project.projectName}</dd>
            <dt>Project id</dt>
            <dd>{detail.data.data.project.id}</dd>
            <dt>API key</dt>
            <dd className="mono">{detail.data.data.project.apiKey}</dd>
            <dt>You act as</dt>
            <dd>
              {detail.data.caller.role} (
              {detail.data.caller.credential === 'apiKey' ? 'project API key' : 'user access token'})
            </dd>
          </dl>
          <h2>System wallets</h2>
          {isAdmin && <AddWallets />}
          <div className="grid-2">
            {pools(detail.data.data).map((pool) => (
              <section key={pool.networkType} aria-labelledby={`pool-${pool.networkType}`}>
                <h3 id={`pool-${pool.networkType}`}>
                  {pool.label} pool{' '}
                  <span className="muted">
                    ({pool.wallets.length} wallet{pool.wallets.length === 1 ? '' : 's'})
                  </span>
                </h3>
                <div className="stack">
                  {pool.wallets.map((wallet, i) => (
                    <WalletCard
                      key={wallet.id}
                      title={i === 0 ? `${pool.label} wallet` : `${pool.label} wallet ${i + 1}`}
                      wallet={wallet}
                      primary={i === 0}
                    />
                  ))}
                </div>
              </section>
            ))}
          </div>
          <h2>Members</h2>
          <MembersTable />
          {isAdmin && <RotateKey />}
        </>
      )}
    </>
  );
}

/**
 * The project's wallets by network type, mainnet first: each pool's primary wallet first, then the others in the
 * API's order (their pool positions).
 */
function pools(detail: {
  mSystemWalletMainnet: SystemWallet;
  mSystemWalletTestnet: SystemWallet;
  mSystemWallets: SystemWallet[];
}) {
  return (
    [
      ['mainnet', 'Mainnet', detail.mSystemWalletMainnet],
      ['testnet', 'Testnet', detail.mSystemWalletTestnet],
    ] as const
  ).map(([networkType, label, primary]) => {
    const others = detail.mSystemWallets.filter((w) => w.networkType === networkType && w.id !== primary.id);
    return { networkType, label, wallets: [primary, ...others] };
  });
}
