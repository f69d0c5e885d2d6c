import type { Config } from '#api/config/config.ts';
import type { NetworkId } from '#api/config/networks.ts';
import { createAwsKmsCustody } from './awsKms/awsKmsCustody.ts';
import type { RemoteCustodians } from './custodian.ts';
import { createFireblocksCustody } from './fireblocks/fireblocksCustody.ts';

/** The custodians the configuration has credentials for (one client each, shared by the process). */
export function remoteCustodians(config: Pick<Config, 'fireblocks' | 'awsKms' | 'rpcUrls'>): RemoteCustodians {
  const networks = Object.keys(config.rpcUrls).map(Number) as NetworkId[];
  return {
    ...(config.fireblocks ? { fireblocks: createFireblocksCustody(config.fireblocks, networks) } : {}),
    ...(config.awsKms ? { awsKms: createAwsKmsCustody(config.awsKms) } : {}),
  };
}
