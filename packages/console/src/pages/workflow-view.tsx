import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must } from '../api';
import { navigate } from '../router';
import { useSession } from '../session';
import { ConfirmButton, CopyButton, ErrorNote, Field, Json, Link, Loading, when } from '../ui';
import { Editor } from './workflow-editor';
import { Graph } from './workflow-graph';

function useWorkflow(workflowId: string) {
  return useQuery({
    queryKey: ['workflow', workflowId],
    queryFn: () => must(api.GET('/workflows/{workflow_id}', { params: { path: { workflow_id: workflowId } } })),
  });
}

export function WorkflowView({ workflowId }: { workflowId: string }) {
  const session = useSession();
  const queries = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [input, setInput] = useState('{\n  "message": "hello"\n}');
  const [inputError, setInputError] = useState<string>();
  const workflow = useWorkflow(workflowId);
  const path = { workflow_id: workflowId };
  const executions = useQuery({
    queryKey: ['executions', workflowId],
    refetchInterval: (q) => (q.state.data?.items.some((e) => e.status === 'running') ? 1000 : false),
    queryFn: () => must(api.GET('/workflows/{workflow_id}/executions', { params: { path, query: { limit: 50 } } })),
  });
  const changed = () => queries.invalidateQueries({ queryKey: ['workflow', workflowId] });
  const run = useMutation({
    mutationFn: (body: { input: Record<string, unknown> }) =>
      must(api.POST('/workflows/{workflow_id}/execute', { params: { path }, body: { ...body, async: true } })),
    onSuccess: async (exe) => {
      // The list and the statistics change with every run, whatever is cached.
      await queries.invalidateQueries({ queryKey: ['executions', workflowId] });
      await queries.invalidateQueries({ queryKey: ['workflow', workflowId] });
      navigate(`/workflows/${workflowId}/${exe.execution_id}`);
    },
  });
  const toggle = useMutation({
    mutationFn: (to: 'pause' | 'resume') =>
      to === 'pause'
        ? must(api.POST('/workflows/{workflow_id}/pause', { params: { path } }))
        : must(api.POST('/workflows/{workflow_id}/resume', { params: { path } })),
    onSuccess: changed,
  });
  const rotate = useMutation({
    mutationFn: () => must(api.POST('/workflows/{workflow_id}/hook/rotate', { params: { path } })),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE('/workflows/{workflow_id}', { params: { path } })),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['workflows'] });
      navigate('/workflows');
    },
  });
  if (workflow.error) return <ErrorNote error={workflow.error} />;
  if (!workflow.data) return <Loading what="workflow" />;
  const w = workflow.data;
  if (editing) return <Editor workflow={w} />;
  const schedule = w.nodes.find((n) => n.type === 'schedule');
  return (
    <section aria-labelledby="wf-name">
      <p>
        <Link to="/workflows">← Workflows</Link>
      </p>
      <div className="heading">
        <h1 id="wf-name">{w.name}</h1>
        <span className={`badge ${w.status}`}>{w.status}</span>
      </div>
      <p className="muted small">
        version {w.version} · trigger {w.trigger_type}
        {w.statistics ? (
          <>
            {' '}
            · {w.statistics.total_runs} runs, {Math.round(w.statistics.success_rate * 100)}% succeeded, average{' '}
            {w.statistics.avg_duration}
          </>
        ) : null}
      </p>
      {w.description ? <p>{w.description}</p> : null}
      {schedule ? (
        <p>
          Schedule <code>{String(schedule.config.cron)}</code> ({String(schedule.config.timezone ?? 'UTC')}) · next run{' '}
          {w.next_run_at ? when(w.next_run_at) : 'none (the workflow is not active)'}
        </p>
      ) : null}
      {w.webhook_url ? (
        <p className="hook">
          Hook URL: <code className="secret">{w.webhook_url}</code> <CopyButton text={w.webhook_url} />{' '}
          {session.can('workflows:write') ? (
            <button type="button" onClick={() => rotate.mutate()}>
              Rotate URL
            </button>
          ) : null}
        </p>
      ) : null}
      <ErrorNote error={toggle.error ?? rotate.error ?? remove.error ?? executions.error} />
      {session.can('workflows:write') ? (
        <div className="actions">
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" onClick={() => toggle.mutate(w.status === 'active' ? 'pause' : 'resume')}>
            {w.status === 'active' ? 'Pause' : 'Activate'}
          </button>
          <ConfirmButton label="Delete" onConfirm={() => remove.mutate()} />
        </div>
      ) : null}
      <Graph nodes={w.nodes} edges={w.edges} label="Workflow graph" />
      {session.can('workflows:execute') ? (
        <form
          className="card form"
          aria-label="Run the workflow"
          onSubmit={(e) => {
            e.preventDefault();
            setInputError(undefined);
            try {
              const parsed = JSON.parse(input || '{}');
              if (typeof parsed !== 'object' || Array.isArray(parsed) || parsed === null) throw new Error();
              run.mutate({ input: parsed });
            } catch {
              setInputError('The input must be a JSON object');
            }
          }}
        >
          <Field label="Input (JSON)">
            {(id) => (
              <textarea id={id} rows={4} className="mono" value={input} onChange={(e) => setInput(e.target.value)} />
            )}
          </Field>
          {inputError ? <p className="error">{inputError}</p> : null}
          <ErrorNote error={run.error} />
          <button type="submit" className="primary" disabled={run.isPending}>
            Run
          </button>
        </form>
      ) : null}
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption>Executions</caption>
          <thead>
            <tr>
              <th scope="col">Execution</th>
              <th scope="col">Status</th>
              <th scope="col">Trigger</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {executions.data?.items.map((e) => (
              <tr key={e.execution_id}>
                <td>
                  <Link to={`/workflows/${workflowId}/${e.execution_id}`}>{e.execution_id}</Link>
                  {e.retry_of ? <span className="muted small"> (retry)</span> : null}
                </td>
                <td>
                  <span className={`badge ${e.status}`}>{e.status}</span>
                </td>
                <td>{e.trigger}</td>
                <td>{when(e.started_at)}</td>
                <td className="num">{e.duration_ms !== undefined ? `${e.duration_ms} ms` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function ExecutionView({ workflowId, executionId }: { workflowId: string; executionId: string }) {
  const session = useSession();
  const queries = useQueryClient();
  const workflow = useWorkflow(workflowId);
  const [chosen, setChosen] = useState<string>();
  const execution = useQuery({
    queryKey: ['execution', executionId],
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 500 : false),
    queryFn: () =>
      must(
        api.GET('/workflows/{workflow_id}/executions/{execution_id}', {
          params: { path: { workflow_id: workflowId, execution_id: executionId } },
        }),
      ),
  });
  const retry = useMutation({
    mutationFn: () =>
      must(api.POST('/executions/{execution_id}/retry', { params: { path: { execution_id: executionId } }, body: {} })),
    onSuccess: async (next) => {
      await queries.invalidateQueries({ queryKey: ['executions', workflowId] });
      navigate(`/workflows/${workflowId}/${next.execution_id}`);
    },
  });
  const status = useMemo(
    () => new Map(execution.data?.node_executions.map((n) => [n.node_id, n]) ?? []),
    [execution.data],
  );
  if (workflow.error || execution.error) return <ErrorNote error={workflow.error ?? execution.error} />;
  if (!workflow.data || !execution.data) return <Loading what="execution" />;
  const w = workflow.data;
  const x = execution.data;
  const node = chosen ? status.get(chosen) : undefined;
  const upstream = chosen ? w.edges.filter((e) => e.target === chosen).map((e) => e.source) : [];
  const nodeInput = !chosen
    ? undefined
    : upstream.length
      ? Object.fromEntries(upstream.map((id) => [id, status.get(id)?.output]))
      : x.input;
  return (
    <section aria-labelledby="exe-title">
      <p>
        <Link to={`/workflows/${workflowId}`}>← {w.name}</Link>
      </p>
      <div className="heading">
        <h1 id="exe-title">Execution</h1>
        <span className={`badge ${x.status}`} data-testid="execution-status">
          {x.status}
        </span>
      </div>
      <p className="muted small">
        <code>{x.execution_id}</code> · {x.trigger} · started {when(x.started_at)}
        {x.duration_ms !== undefined ? <> · {x.duration_ms} ms</> : null} · version {x.workflow_version}
        {x.retry_of ? (
          <>
            {' '}
            · retry of <Link to={`/workflows/${workflowId}/${x.retry_of}`}>{x.retry_of}</Link>
          </>
        ) : null}
      </p>
      {x.error ? (
        <p className="error" role="alert">
          {x.failed_node_id ? <>Node {x.failed_node_id}: </> : null}
          {x.error}
        </p>
      ) : null}
      {(x.status === 'failed' || x.status === 'cancelled') && session.can('workflows:execute') ? (
        <button type="button" className="primary" onClick={() => retry.mutate()} disabled={retry.isPending}>
          Retry from the failed node
        </button>
      ) : null}
      <ErrorNote error={retry.error} />
      <Graph
        nodes={w.nodes}
        edges={w.edges}
        status={status}
        selected={chosen}
        onSelect={setChosen}
        label="Execution graph"
      />
      <Field label="Node">
        {(id) => (
          <select id={id} value={chosen ?? ''} onChange={(e) => setChosen(e.target.value || undefined)}>
            <option value="">Choose a node to see its input and output…</option>
            {w.nodes.map((n) => (
              <option key={n.id} value={n.id}>
                {n.id} ({status.get(n.id)?.status ?? 'not run'})
              </option>
            ))}
          </select>
        )}
      </Field>
      {chosen ? (
        <div className="card">
          <h2>{chosen}</h2>
          {node ? (
            <p className="small">
              {node.status} · {node.duration_ms} ms · {node.attempts} attempt{node.attempts === 1 ? '' : 's'} · started{' '}
              {when(node.started_at)}
            </p>
          ) : (
            <p className="muted">This node did not run.</p>
          )}
          {node?.error ? <p className="error">{node.error}</p> : null}
          <h3>Input</h3>
          <Json value={nodeInput} />
          <h3>Output</h3>
          <Json value={node?.output} />
        </div>
      ) : null}
      <h2>Execution input and output</h2>
      <div className="split2">
        <Json value={x.input} />
        <Json value={x.output} />
      </div>
    </section>
  );
}
