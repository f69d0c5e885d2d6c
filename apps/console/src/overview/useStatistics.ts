import type { MountainClient } from '@mountain/public-api-client';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

/** The project's last 24 hours (get-statistics), refreshed every minute while the tab is visible. */
export const statisticsQuery = (client: MountainClient) =>
  queryOptions({
    queryKey: ['statistics'],
    queryFn: ({ signal }) => client.getStatistics({ signal }),
    refetchInterval: 60_000,
  });

export function useStatistics() {
  return useQuery(statisticsQuery(useClient()));
}
