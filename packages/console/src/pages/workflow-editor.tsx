import { useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, must } from '../api';
import { navigate } from '../router';
import { ErrorNote, Field, Link } from '../ui';
import { useAllAgents } from './agents';
import { Graph, nodeIndexOf, type NodeType, type WfNode, type Workflow } from './workflow-graph';

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
export function Editor({ workflow }: { workflow?: Workflow }) {
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
