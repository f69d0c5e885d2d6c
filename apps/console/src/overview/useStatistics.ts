import { useQuery } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

/** The project's last 24 hours (get-statistics), refreshed every minute while the tab is visible. */
export function useStatistics() {
  const client = useClient();
  return useQuery({
    queryKey: ['statistics'],
    queryFn: ({ signal }) => client.getStatistics({ signal }),
    refetchInterval: 60_000,
  });
}
