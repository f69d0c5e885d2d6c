import type { ResponseBody } from '@mountain/public-api-client';
import { formatAbiParameter } from 'abitype';
import type { AbiParameter } from 'viem';

type Answer = ResponseBody<'call-contract-function'>;

/** An output's type as Solidity writes it: a tuple with its components, without the output's name. */
const typeOf = (output: AbiParameter) => formatAbiParameter({ ...output, name: undefined } as AbiParameter);

/**
 * What a read answered: each output by name (or position) and type, as the API encodes it, and the block it was
 * read at. A polite live region: a screen reader reads the answer when it comes.
 */
export function ReadResult({ outputs, answer }: { outputs: readonly AbiParameter[]; answer: Answer | undefined }) {
  return (
    <div aria-live="polite">
      {answer && (
        <>
          {outputs.length === 0 ? (
            <p>The function returns nothing.</p>
          ) : (
            <dl className="facts">
              {outputs.map((output, i) => (
                <div key={`${output.name ?? ''}-${i}`} className="contents">
                  <dt>
                    {output.name || `output ${i + 1}`} <span className="mono">({typeOf(output)})</span>
                  </dt>
                  <dd className="mono">{answer.result[i] ?? '—'}</dd>
                </div>
              ))}
            </dl>
          )}
          <p className="muted">Read at block {answer.blockNumber}.</p>
        </>
      )}
    </div>
  );
}
