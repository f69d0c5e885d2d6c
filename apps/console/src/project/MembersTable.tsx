import { DataTable } from '../ui/DataTable.tsx';
import { Empty } from '../ui/Empty.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { formatTime } from '../ui/format.ts';
import { Loading } from '../ui/Loading.tsx';
import { useMembers } from './useProject.ts';

export function MembersTable() {
  const members = useMembers();
  if (members.isPending) return <Loading what="members" />;
  if (members.isError) return <ErrorNotice error={members.error} onRetry={() => members.refetch()} />;
  if (members.data.members.length === 0) {
    return (
      <Empty>
        No members yet: add one with <code>mountain-admin add-member</code>.
      </Empty>
    );
  }
  return (
    <DataTable caption="Project members" columns={['Email', 'Name', 'Role', 'Since']}>
      {members.data.members.map((m) => (
        <tr key={m.userId}>
          <td>{m.email}</td>
          <td>{m.name || '—'}</td>
          <td>{m.role}</td>
          <td>{formatTime(m.since)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
