import { useProjectDetail } from '../project/useProject.ts';
import type { Credentials } from '../session/session.ts';

/** Which project, with which role, and how: so a reader knows why there is nothing to press. */
export function Who({ credentials }: { credentials: Credentials }) {
  const detail = useProjectDetail();
  const project = detail.data?.data.project;
  return (
    <p>
      {project ? project.projectName : 'Project'}
      {detail.data && ` · ${detail.data.caller.role}`}
      <br />
      {credentials.signedInWith === 'apiKey' ? 'with the project API key' : 'as a user'}
    </p>
  );
}
