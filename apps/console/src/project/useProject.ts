import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClient } from '../api/client.ts';

export const projectKey = ['project-detail'] as const;

/** The project, its two wallets, and who is calling with which role. */
export function useProjectDetail() {
  const client = useClient();
  return useQuery({ queryKey: projectKey, queryFn: ({ signal }) => client.getProjectDetail({ signal }) });
}

/** Whether the caller may change things (admin, editor): readers are shown no write controls. */
export function useCanWrite(): boolean {
  const role = useProjectDetail().data?.caller.role;
  return role === 'admin' || role === 'editor';
}

export function useIsAdmin(): boolean {
  return useProjectDetail().data?.caller.role === 'admin';
}

export function useMembers() {
  const client = useClient();
  return useQuery({ queryKey: ['project-members'], queryFn: ({ signal }) => client.getProjectMembers({ signal }) });
}

export function useRotateApiKey() {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.rotateApiKey(),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKey }),
  });
}
