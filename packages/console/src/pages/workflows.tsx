import { useQuery } from '@tanstack/react-query';
import { api, must } from '../api';
import { useSession } from '../session';
import { ErrorNote, Link, Loading, when } from '../ui';
import { Editor } from './workflow-editor';
import { ExecutionView, WorkflowView } from './workflow-view';

export default function WorkflowsPage({ workflowId, executionId }: { workflowId?: string; executionId?: string }) {
  if (workflowId === 'new') return <Editor />;
  if (workflowId && executionId) return <ExecutionView workflowId={workflowId} executionId={executionId} />;
  if (workflowId) return <WorkflowView workflowId={workflowId} />;
  return <WorkflowList />;
}

function WorkflowList() {
  const session = useSession();
  const list = useQuery({
    queryKey: ['workflows'],
    queryFn: () => must(api.GET('/workflows', { params: { query: { per_page: 100 } } })),
  });
  return (
    <section aria-labelledby="wf-title">
      <div className="heading">
        <h1 id="wf-title">Workflows</h1>
        {session.can('workflows:write') ? (
          <Link to="/workflows/new" className="button primary">
            New workflow
          </Link>
        ) : null}
      </div>
      <ErrorNote error={list.error} />
      {list.isPending ? <Loading what="workflows" /> : null}
      <ul className="cards">
        {list.data?.items.map((w) => (
          <li key={w.id} className="card">
            <div className="heading">
              <h2>
                <Link to={`/workflows/${w.id}`}>{w.name}</Link>
              </h2>
              <span className={`badge ${w.status}`}>{w.status}</span>
            </div>
            <p className="muted small">
              trigger {w.trigger_type} · last run {when(w.last_run_at)}
              {w.next_run_at ? <> · next run {when(w.next_run_at)}</> : null}
            </p>
          </li>
        ))}
      </ul>
      {list.data && !list.data.items.length ? <p className="muted">No workflows yet.</p> : null}
    </section>
  );
}
