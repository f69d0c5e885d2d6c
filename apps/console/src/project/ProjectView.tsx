import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
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
          <div className="grid-2">
            <WalletCard title="Mainnet wallet" wallet={detail.data.data.mSystemWalletMainnet} />
            <WalletCard title="Testnet wallet" wallet={detail.data.data.mSystemWalletTestnet} />
          </div>
          <h2>Members</h2>
          <MembersTable />
          {isAdmin && <RotateKey />}
        </>
      )}
    </>
  );
}
