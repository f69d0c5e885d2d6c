import type { NetworkId } from '@mountain/public-api-client';
import type { SelectHTMLAttributes } from 'react';
import { NETWORK_IDS, NETWORKS } from './networks.ts';

/** The networks the console knows, by name and chain id (the other props, such as a Field's id, go to the select). */
export function NetworkSelect({
  value,
  onChange,
  ...rest
}: { value: NetworkId; onChange: (networkId: NetworkId) => void } & Omit<
  SelectHTMLAttributes<HTMLSelectElement>,
  'value' | 'onChange'
>) {
  return (
    <select {...rest} value={value} onChange={(event) => onChange(Number(event.target.value) as NetworkId)}>
      {NETWORK_IDS.map((id) => (
        <option key={id} value={id}>
          {NETWORKS[id].name} ({id})
        </option>
      ))}
    </select>
  );
}
