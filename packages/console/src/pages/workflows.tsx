import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Background, Controls, Position, ReactFlow, type Connection, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { operations } from '@agentplatform/sdk/src/api-types';
import { api, ApiError, must } from '../api';
import { navigate } from '../router';
import { useSession } from '../session';
import { ConfirmButton, CopyButton, ErrorNote, Field, Json, Link, Loading, when } from '../ui';
import { useAllAgents } from './agents';

type Workflow = operations['getWorkflowsWorkflowId']['responses'][200]['content']['application/json'];
type WfNode = Workflow['nodes'][number];
type NodeType = WfNode['type'];
type Execution =
  operations['getWorkflowsWorkflowIdExecutionsExecutionId']['responses'][200]['content']['application/json'];
type NodeRun = Execution['node_executions'][number];

const NODE_TYPES: NodeType[] = [
  'webhook',
  'schedule',
  'agent',
  'condition',
  'integration',
  'transform',
  'delay',
  'workflow',
  'foreach',
];

/** A starting config per type, so a new node is valid once its blanks are filled. */
const STARTER: Record<NodeType, Record<string, unknown>> = {
  webhook: {},
  schedule: { cron: '0 9 * * 1-5', timezone: 'UTC' },
  agent: { agent_id: '', message: '{{ input.message }}' },
  condition: { rules: [{ if: 'input.amount > 100', goto: '' }, { else: '' }] },
  integration: { service: 'http', url: 'https://example.com', method: 'POST' },
  transform: { fields: { result: 'input' } },
  delay: { ms: 1000 },
  workflow: { workflow_id: '' },
  foreach: { items: 'input.items', workflow_id: '' },
};

/** Columns by longest path from a root, rows in order: a readable left-to-right graph without a layout engine. */
export function layout(
  nodes: { id: string }[],
  edges: { source: string; target: string }[],
): Map<string, { x: number; y: number }> {
  const depth = new Map(nodes.map((n) => [n.id, 0]));
  for (let round = 0; round < nodes.length; round++) {
    let moved = false;
    for (const e of edges) {
      const d = (depth.get(e.source) ?? 0) + 1;
      if (depth.has(e.target) && d > (depth.get(e.target) ?? 0) && d < nodes.length) {
        depth.set(e.target, d);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const rows = new Map<number, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const col = depth.get(n.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    at.set(n.id, { x: col * 220, y: row * 110 });
  }
  return at;
}

/** The index of the node an API validation error names (`nodes[3].config.agent_id`), if any. */
export function nodeIndexOf(field: string | undefined): number | undefined {
  const match = /^nodes\[(\d+)\]/.exec(field ?? '');
  return match ? Number(match[1]) : undefined;
}

function Graph({
  nodes,
  edges,
  status,
  errors,
  selected,
  onSelect,
  onConnect,
  label,
}: {
  nodes: { id: string; type: string }[];
  edges: { source: string; target: string }[];
  status?: Map<string, NodeRun>;
  errors?: Map<string, string[]>;
  selected?: string;
  onSelect?: (id: string) => void;
  onConnect?: (c: Connection) => void;
  label: string;
}) {
  const flow = useMemo(() => {
    const at = layout(nodes, edges);
    const flowNodes: Node[] = nodes.map((n) => {
      const run = status?.get(n.id);
      const problems = errors?.get(n.id);
      return {
        id: n.id,
        position: at.get(n.id) ?? { x: 0, y: 0 },
        // The layout runs left to right.
        sourcePosition: Position.Right,
        targetPosition: Position.Left,
        data: {
          label: (
            <div data-testid={`node-${n.id}`} data-status={run?.status ?? (status ? 'not run' : undefined)}>
              <strong>{n.id}</strong>
              <div className="small">{n.type}</div>
              {run ? (
                <div className={`badge ${run.status}`}>
                  {run.status} · {run.duration_ms} ms
                </div>
              ) : status ? (
                <div className="badge">not run</div>
              ) : null}
              {problems?.map((p, i) => (
                <div key={i} className="node-error" role="alert">
                  {p}
                </div>
              ))}
            </div>
          ),
        },
        className: ['wf-node', run?.status ?? '', problems ? 'invalid' : '', n.id === selected ? 'chosen' : ''].join(
          ' ',
        ),
      };
    });
    const flowEdges: Edge[] = edges.map((e) => ({
      id: `${e.source}->${e.target}`,
      source: e.source,
      target: e.target,
      animated: false,
    }));
    return { flowNodes, flowEdges };
  }, [nodes, edges, status, errors, selected]);
  return (
    <div className="graph" role="group" aria-label={label}>
      <ReactFlow
        // fitView applies when the view mounts: a new node or a new error fits the view again.
        key={`${nodes.length}:${errors?.size ?? 0}`}
        nodes={flow.flowNodes}
        edges={flow.flowEdges}
        fitView
        nodesConnectable={!!onConnect}
        onConnect={onConnect}
        onNodeClick={(_, node) => onSelect?.(node.id)}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

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

interface Draft {
  name: string;
  description: string;
  nodes: { id: string; type: NodeType; config: string }[];
  edges: { source: string; target: string }[];
}

function draftOf(w?: Workflow): Draft {
  if (!w)
    return {
      name: '',
      description: '',
      nodes: [{ id: 'start', type: 'webhook', config: '{}' }],
      edges: [],
    };
  return {
    name: w.name,
    description: w.description,
    nodes: w.nodes.map((n) => ({ id: n.id, type: n.type, config: JSON.stringify(n.config, null, 2) })),
    edges: w.edges.map((e) => ({ source: e.source, target: e.target })),
  };
}

/** Builds the graph node by node; the API validates it, and each error is shown on the node it names. */
function Editor({ workflow }: { workflow?: Workflow }) {
  const queries = useQueryClient();
  const agents = useAllAgents();
  const [draft, setDraft] = useState<Draft>(() => draftOf(workflow));
  const [selected, setSelected] = useState<string | undefined>(draft.nodes[0]?.id);
  const [parseError, setParseError] = useState<string>();
  const save = useMutation({
    mutationFn: (body: { name: string; description: string; nodes: WfNode[]; edges: Draft['edges'] }) =>
      workflow
        ? must(api.PUT('/workflows/{workflow_id}', { params: { path: { workflow_id: workflow.id } }, body }))
        : must(api.POST('/workflows', { body })),
    onSuccess: async (saved) => {
      await queries.invalidateQueries({ queryKey: ['workflows'] });
      await queries.invalidateQueries({ queryKey: ['workflow', saved.id] });
      navigate(`/workflows/${saved.id}`);
    },
  });
  const errors = useMemo(() => {
    const byNode = new Map<string, string[]>();
    const error = save.error;
    if (error instanceof ApiError)
      for (const d of error.body.details ?? []) {
        const index = nodeIndexOf(d.field);
        const node = index !== undefined ? draft.nodes[index] : undefined;
        if (node)
          byNode.set(node.id, [
            ...(byNode.get(node.id) ?? []),
            `${d.field?.replace(/^nodes\[\d+\]\.?/, '') || 'node'}: ${d.message}`,
          ]);
      }
    return byNode;
  }, [save.error, draft.nodes]);
  const node = draft.nodes.find((n) => n.id === selected);
  const setNode = (change: Partial<Draft['nodes'][number]>) =>
    setDraft({ ...draft, nodes: draft.nodes.map((n) => (n.id === selected ? { ...n, ...change } : n)) });
  const addNode = (type: NodeType) => {
    let i = draft.nodes.length + 1;
    while (draft.nodes.some((n) => n.id === `${type}${i}`)) i++;
    const id = `${type}${i}`;
    const config = { ...STARTER[type] };
    if (type === 'agent' && agents.data?.agents[0]) config.agent_id = agents.data.agents[0].id;
    const from = selected;
    setDraft({
      ...draft,
      nodes: [...draft.nodes, { id, type, config: JSON.stringify(config, null, 2) }],
      edges: from ? [...draft.edges, { source: from, target: id }] : draft.edges,
    });
    setSelected(id);
  };
  const submit = () => {
    setParseError(undefined);
    const nodes: WfNode[] = [];
    for (const n of draft.nodes) {
      try {
        nodes.push({ id: n.id, type: n.type, config: JSON.parse(n.config || '{}') });
      } catch {
        setParseError(`Node ${n.id}: its config is not valid JSON`);
        return;
      }
    }
    save.mutate({ name: draft.name, description: draft.description, nodes, edges: draft.edges });
  };
  const unplaced =
    save.error instanceof ApiError
      ? (save.error.body.details ?? []).filter((d) => nodeIndexOf(d.field) === undefined)
      : [];
  return (
    <section aria-labelledby="editor-title">
      <h1 id="editor-title">{workflow ? `Edit ${workflow.name}` : 'New workflow'}</h1>
      <div className="grid">
        <Field label="Name">
          {(id) => (
            <input id={id} value={draft.name} required onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
          )}
        </Field>
        <Field label="Description">
          {(id) => (
            <input
              id={id}
              value={draft.description}
              onChange={(e) => setDraft({ ...draft, description: e.target.value })}
            />
          )}
        </Field>
      </div>
      <div className="split">
        <Graph
          nodes={draft.nodes}
          edges={draft.edges}
          errors={errors}
          selected={selected}
          onSelect={setSelected}
          onConnect={(c) =>
            c.source &&
            c.target &&
            setDraft({ ...draft, edges: [...draft.edges, { source: c.source, target: c.target }] })
          }
          label="Workflow graph (editable)"
        />
        <div className="card form">
          <Field label="Add a node after the selected one">
            {(id) => (
              <select id={id} value="" onChange={(e) => e.target.value && addNode(e.target.value as NodeType)}>
                <option value="">Choose a type…</option>
                {NODE_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Selected node">
            {(id) => (
              <select id={id} value={selected ?? ''} onChange={(e) => setSelected(e.target.value)}>
                {draft.nodes.map((n) => (
                  <option key={n.id}>{n.id}</option>
                ))}
              </select>
            )}
          </Field>
          {node ? (
            <>
              <Field label="Type">
                {(id) => (
                  <select id={id} value={node.type} onChange={(e) => setNode({ type: e.target.value as NodeType })}>
                    {NODE_TYPES.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label="Config (JSON)">
                {(id) => (
                  <textarea
                    id={id}
                    rows={7}
                    className="mono"
                    value={node.config}
                    onChange={(e) => setNode({ config: e.target.value })}
                  />
                )}
              </Field>
              {errors.get(node.id)?.map((p, i) => (
                <p key={i} className="error">
                  {p}
                </p>
              ))}
              <button
                type="button"
                onClick={() => {
                  setDraft({
                    ...draft,
                    nodes: draft.nodes.filter((n) => n.id !== node.id),
                    edges: draft.edges.filter((e) => e.source !== node.id && e.target !== node.id),
                  });
                  setSelected(draft.nodes.find((n) => n.id !== node.id)?.id);
                }}
              >
                Remove node
              </button>
            </>
          ) : null}
          <h2>Edges</h2>
          <ul className="plain">
            {draft.edges.map((e, i) => (
              <li key={i}>
                {e.source} → {e.target}{' '}
                <button
                  type="button"
                  onClick={() => setDraft({ ...draft, edges: draft.edges.filter((_, j) => j !== i) })}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <EdgeAdder
            nodes={draft.nodes.map((n) => n.id)}
            onAdd={(edge) => setDraft({ ...draft, edges: [...draft.edges, edge] })}
          />
        </div>
      </div>
      {parseError ? <p className="error">{parseError}</p> : null}
      {save.error && !(save.error instanceof ApiError && save.error.body.details?.length && !unplaced.length) ? (
        <ErrorNote error={save.error} />
      ) : null}
      <div className="actions">
        <button type="button" className="primary" onClick={submit} disabled={save.isPending}>
          {workflow ? 'Save workflow' : 'Create workflow'}
        </button>
        <Link to={workflow ? `/workflows/${workflow.id}` : '/workflows'} className="button">
          Cancel
        </Link>
      </div>
    </section>
  );
}

function EdgeAdder({ nodes, onAdd }: { nodes: string[]; onAdd: (e: { source: string; target: string }) => void }) {
  const [source, setSource] = useState('');
  const [target, setTarget] = useState('');
  return (
    <div className="row">
      <Field label="From">
        {(id) => (
          <select id={id} value={source} onChange={(e) => setSource(e.target.value)}>
            <option value="">—</option>
            {nodes.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="To">
        {(id) => (
          <select id={id} value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">—</option>
            {nodes.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        )}
      </Field>
      <button type="button" disabled={!source || !target} onClick={() => onAdd({ source, target })}>
        Add edge
      </button>
    </div>
  );
}

function useWorkflow(workflowId: string) {
  return useQuery({
    queryKey: ['workflow', workflowId],
    queryFn: () => must(api.GET('/workflows/{workflow_id}', { params: { path: { workflow_id: workflowId } } })),
  });
}

function WorkflowView({ workflowId }: { workflowId: string }) {
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

function ExecutionView({ workflowId, executionId }: { workflowId: string; executionId: string }) {
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
