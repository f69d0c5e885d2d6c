import { useState } from 'react';
import { useCanWrite } from '../project/useProject.ts';
import { Empty } from '../ui/Empty.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { lazyNamed, loadOnIntent, WhenOpened } from '../ui/WhenOpened.tsx';
import { ContractCard } from './ContractCard.tsx';
import { useContracts } from './useContracts.ts';

const ImportContractDialog = lazyNamed(() => import('./ImportContractDialog.tsx'), 'ImportContractDialog');

export function ContractsView() {
  const contracts = useContracts();
  const canWrite = useCanWrite();
  const [importing, setImporting] = useState(false);
  return (
    <>
      <h1>Contracts</h1>
      {canWrite && (
        <div className="toolbar">
          <button
            type="button"
            className="primary"
            onClick={() => setImporting(true)}
            {...loadOnIntent(ImportContractDialog)}
          >
            Import a contract
          </button>
        </div>
      )}
      {contracts.isPending && <Loading what="contracts" />}
      {contracts.isError && <ErrorNotice error={contracts.error} onRetry={() => contracts.refetch()} />}
      {contracts.data && contracts.data.contracts.length === 0 && (
        <Empty>
          No contract yet. {canWrite ? 'Import one with its address and ABI.' : 'An editor or admin can import one.'}
        </Empty>
      )}
      {contracts.data?.contracts.map((contract) => (
        <ContractCard key={contract.id} contract={contract} canWrite={canWrite} />
      ))}
      {canWrite && (
        <WhenOpened open={importing}>
          <ImportContractDialog isOpen={importing} onClose={() => setImporting(false)} />
        </WhenOpened>
      )}
    </>
  );
}
