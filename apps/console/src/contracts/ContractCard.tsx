import type { Contract } from '@mountain/public-api-client';
import { Link } from '@tanstack/react-router';
import { messageOf } from '../api/errors.ts';
import { explorerUrl, networkName } from '../networks/networks.ts';
import { ACTIONS, DataTable } from '../ui/DataTable.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { canonical, structsOf } from './abiText.ts';
import { useActivatedFunctions, useSetFunctionActive } from './useContracts.ts';

/** A contract and each function of its ABI: active or not, with activate/deactivate for writers and an execute link. */
export function ContractCard({ contract, canWrite }: { contract: Contract; canWrite: boolean }) {
  const activated = useActivatedFunctions(contract.id);
  const setActive = useSetFunctionActive(contract.id);
  const functions = contract.formattedAbi.filter((s) => s.startsWith('function '));
  const structs = structsOf(contract.formattedAbi);
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
        <DataTable caption={`Functions of contract ${contract.id}`} columns={['Function', 'State', ACTIONS]}>
          {functions.map((signature) => {
            const active = activeBySignature.get(canonical(signature, structs));
            return (
              <tr key={signature}>
                <td className="mono">{signature}</td>
                <td>
                  {active ? (
                    <span className="badge status-succeeded">active</span>
                  ) : (
                    <span className="muted">inactive</span>
                  )}
                </td>
                <td>
                  <div className="row">
                    {canWrite && (
                      <button
                        type="button"
                        disabled={setActive.isPending}
                        onClick={() => setActive.mutate({ formattedAbiFunction: signature, active: !active })}
                        aria-label={`${active ? 'Deactivate' : 'Activate'} ${signature}`}
                      >
                        {active ? 'Deactivate' : 'Activate'}
                      </button>
                    )}
                    {canWrite && active && (
                      <Link
                        className="button"
                        to="/execute/$functionId"
                        params={{ functionId: String(active.id) }}
                        search={{ contractId: contract.id }}
                        aria-label={`Execute ${signature}`}
                      >
                        Execute
                      </Link>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}
