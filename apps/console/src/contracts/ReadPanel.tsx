import type { Contract } from '@mountain/public-api-client';
import { readableFunctions } from './abiText.ts';
import { ReadFunction } from './ReadFunction.tsx';

/** The Read panel of a contract: a form for each of its view and pure functions, open to every role. */
export function ReadPanel({ id, contract, hidden }: { id: string; contract: Contract; hidden: boolean }) {
  const reads = readableFunctions(contract.formattedAbi);
  const headingId = `${id}-heading`;
  return (
    <section id={id} aria-labelledby={headingId} hidden={hidden}>
      <h3 id={headingId}>Read</h3>
      <p className="muted">
        A read calls the function on the network at a block (eth_call): nothing is sent and nothing is paid.
      </p>
      {reads.map(({ signature, fn }) => (
        <ReadFunction key={signature} contractId={contract.id} signature={signature} fn={fn} />
      ))}
    </section>
  );
}
