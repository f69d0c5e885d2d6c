import type { Config } from '#api/config/config.ts';
import type { NetworkId } from '#api/config/networks.ts';
import { custodianOf, type RemoteCustodianSettings, type RemoteCustodians, WALLET_TYPES } from './custodians.ts';

/**
 * The custodians the configuration has credentials for (one client each, shared by the process): the client of each
 * registry entry whose settings the configuration has.
 */
export async function remoteCustodians(
  config: Pick<Config, keyof RemoteCustodianSettings | 'rpcUrls'>,
): Promise<RemoteCustodians> {
  const networks = Object.keys(config.rpcUrls).map(Number) as NetworkId[];
  const settingsByName: Readonly<Record<string, unknown>> = config;
  const clients = await Promise.all(
    WALLET_TYPES.map(async (type) => {
      const configuration = custodianOf(type).configuration;
      const settings = configuration && settingsByName[configuration.name];
      return configuration && settings ? [[configuration.name, await configuration.client(settings, networks)]] : [];
    }),
  );
  return Object.fromEntries(clients.flat()) as RemoteCustodians;
}
