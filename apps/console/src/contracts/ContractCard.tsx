import type { Contract } from '@mountain/public-api-client';
import { Suspense, useId, useState } from 'react';
import { messageOf } from '../api/errors.ts';
import { explorerUrl, NETWORKS, networkName } from '../networks/networks.ts';
import { ACTIONS, DataTable } from '../ui/DataTable.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { lazyNamed, loadOnIntent, WhenOpened } from '../ui/WhenOpened.tsx';
import { callableEntries, canonical, mutabilityOf, readableFunctions, structsOf } from './abiText.ts';
import { FunctionRow } from './FunctionRow.tsx';
import { useActivatedFunctions, useSetFunctionActive } from './useContracts.ts';

const LimitsDialog = lazyNamed(() => import('./LimitsDialog.tsx'), 'LimitsDialog');
const ReadPanel = lazyNamed(() => import('./ReadPanel.tsx'), 'ReadPanel');

/**
 * A contract and each callable entry of its ABI: active or not, the value a payable one may send, with activate,
 * deactivate and its limits for writers and an execute link; and the Read panel of its view and pure functions,
 * for every role.
 */
export function ContractCard({ contract, canWrite }: { contract: Contract; canWrite: boolean }) {
  const activated = useActivatedFunctions(contract.id);
  const setActive = useSetFunctionActive(contract.id);
  const [limitsOf, setLimitsOf] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  const readId = useId();
  const functions = callableEntries(contract.formattedAbi);
  const structs = structsOf(contract.formattedAbi);
  const hasReads = readableFunctions(contract.formattedAbi).length > 0;
  const coin = NETWORKS[contract.networkId]?.coin ?? 'ETH';
  const activeBySignature = new Map(
    (activated.data?.contractActivatedFunctions ?? []).map((f) => [canonical(f.formattedAbiFunction, structs), f]),
  );
  const explorer = explorerUrl(contract.networkId, 'address', contract.address);
  const headingId = `contract-${contract.id}`;
  return (
    <section className="card" aria-labelledby={headingId} style={{ marginBottom: '1rem' }}>
      <h2 id={headingId}>
        Contract {contract.id} <span className="muted">on {networkName(contract.networkId)}</span>
      </h2>
      <p className="mono">
        {explorer ? (
          <a href={explorer} target="_blank" rel="noreferrer">
            {contract.address}
          </a>
        ) : (
          contract.address
        )}
      </p>
      {activated.isPending && <Loading what="activated functions" />}
      {activated.isError && <ErrorNotice error={activated.error} onRetry={() => activated.refetch()} />}
      {setActive.isError && (
        <div className="notice error" role="alert">
          {messageOf(setActive.error)}
        </div>
      )}
      {activated.data && (
        <DataTable caption={`Functions of contract ${contract.id}`} columns={['Function', 'State', 'Value', ACTIONS]}>
          {functions.map((signature) => (
            <FunctionRow
              key={signature}
              contractId={contract.id}
              signature={signature}
              active={activeBySignature.get(canonical(signature, structs))}
              mutability={mutabilityOf(signature, structs)}
              coin={coin}
              canWrite={canWrite}
              pending={setActive.isPending}
              onSetActive={(active) => setActive.mutate({ formattedAbiFunction: signature, active })}
              onLimits={() => setLimitsOf(signature)}
            />
          ))}
        </DataTable>
      )}
      {hasReads && (
        <div className="toolbar">
          <button
            type="button"
            aria-expanded={reading}
            aria-controls={reading ? readId : undefined}
            onClick={() => setReading(!reading)}
            {...loadOnIntent(ReadPanel)}
          >
            Read view functions
          </button>
        </div>
      )}
      <WhenOpened open={reading}>
        <ReadPanel id={readId} contract={contract} hidden={!reading} />
      </WhenOpened>
      {canWrite && limitsOf !== null && (
        <Suspense fallback={null}>
          <LimitsDialog
            key={limitsOf}
            contractId={contract.id}
            signature={limitsOf}
            active={activeBySignature.get(canonical(limitsOf, structs))}
            coin={coin}
            isOpen
            onClose={() => setLimitsOf(null)}
          />
        </Suspense>
      )}
    </section>
  );
}
