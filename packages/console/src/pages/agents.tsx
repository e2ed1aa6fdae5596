import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must } from '../api';
import type { operations } from '@agentplatform/sdk/src/api-types';
import { useSession } from '../session';
import { ConfirmButton, ErrorNote, Field, Link, Loading, Pager, when } from '../ui';

export type Agent = operations['getAgents']['responses'][200]['content']['application/json']['agents'][number];
type AgentInput = NonNullable<operations['postAgents']['requestBody']>['content']['application/json'];
type ToolInput = NonNullable<NonNullable<AgentInput['config']>['tools']>[number];
type Tool = NonNullable<Agent['config']['tools']>[number];

const TYPES = ['assistant', 'support', 'sales', 'research', 'custom'] as const;
const MEMORY_TYPES = ['semantic', 'episodic', 'procedural'] as const;
const PER_PAGE = 20;

/** Every agent of the tenant, for the pickers of other pages (the API's largest page). */
export function useAllAgents() {
  return useQuery({
    queryKey: ['agents', 'all'],
    queryFn: () => must(api.GET('/agents', { params: { query: { per_page: 100 } } })),
  });
}

export function AgentsPage() {
  const session = useSession();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<Agent | 'new' | undefined>();
  const list = useQuery({
    queryKey: ['agents', page],
    queryFn: () => must(api.GET('/agents', { params: { query: { page, per_page: PER_PAGE } } })),
  });
  const queries = useQueryClient();
  const changed = () => queries.invalidateQueries({ queryKey: ['agents'] });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: string; body: Partial<AgentInput> }) =>
      must(api.PATCH('/agents/{agent_id}', { params: { path: { agent_id: id } }, body })),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/agents/{agent_id}', { params: { path: { agent_id: id } } })),
    onSuccess: changed,
  });
  const needle = search.trim().toLowerCase();
  const shown = (list.data?.agents ?? []).filter(
    (a) =>
      !needle ||
      a.name.toLowerCase().includes(needle) ||
      a.description.toLowerCase().includes(needle) ||
      a.id === needle,
  );
  const canWrite = session.can('agents:write');
  return (
    <section aria-labelledby="agents-title">
      <div className="heading">
        <h1 id="agents-title">Agents</h1>
        {canWrite ? (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            New agent
          </button>
        ) : null}
      </div>
      {editing ? (
        <AgentForm agent={editing === 'new' ? undefined : editing} onDone={() => setEditing(undefined)} />
      ) : null}
      <Field label="Search this page">
        {(id) => (
          <input
            id={id}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="name, description or id"
          />
        )}
      </Field>
      <ErrorNote error={list.error ?? update.error ?? remove.error} />
      {list.isPending ? <Loading what="agents" /> : null}
      <ul className="cards">
        {shown.map((agent) => (
          <li key={agent.id} className="card">
            <div className="heading">
              <h2>{agent.name}</h2>
              <span className={`badge ${agent.status}`}>{agent.status === 'active' ? 'active' : 'paused'}</span>
            </div>
            <p className="muted">
              {agent.type} · {agent.config.model ?? 'default model'} · memory: {agent.memory_types.join(', ') || 'none'}{' '}
              · tools: {(agent.config.tools ?? []).map(toolLabel).join(', ') || 'none'}
            </p>
            {agent.description ? <p>{agent.description}</p> : null}
            <p className="muted small">
              <code>{agent.id}</code> · created {when(agent.created_at)}
            </p>
            <div className="actions">
              <Link to={`/chat/${agent.id}`} className="button">
                Chat
              </Link>
              {canWrite ? (
                <>
                  <button type="button" onClick={() => setEditing(agent)}>
                    Edit
                  </button>
                  <button
                    type="button"
                    onClick={() =>
                      update.mutate({
                        id: agent.id,
                        body: { status: agent.status === 'active' ? 'inactive' : 'active' },
                      })
                    }
                  >
                    {agent.status === 'active' ? 'Pause' : 'Resume'}
                  </button>
                  <ConfirmButton label="Delete" onConfirm={() => remove.mutate(agent.id)} />
                </>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
      {list.data && list.data.total === 0 ? <p className="muted">No agents yet.</p> : null}
      {list.data ? <Pager page={page} perPage={PER_PAGE} total={list.data.total} onPage={setPage} /> : null}
    </section>
  );
}

function toolLabel(tool: Tool): string {
  if (tool.type === 'workflow') return `workflow ${tool.name ?? tool.workflow_id}`;
  return 'name' in tool ? `${tool.type} ${tool.name}` : tool.type;
}

/** A grant as the API takes it back: header values are write-only, and one sent without them keeps them. */
function keepTool(tool: Tool): ToolInput {
  if (tool.type === 'http') {
    const rest: Omit<typeof tool, 'header_names'> & { header_names?: string[] } = { ...tool };
    delete rest.header_names;
    return { ...rest, method: rest.method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' };
  }
  if (tool.type === 'mcp') {
    const rest: Omit<typeof tool, 'header_names'> & { header_names?: string[] } = { ...tool };
    delete rest.header_names;
    return rest;
  }
  return tool as ToolInput;
}

function AgentForm({ agent, onDone }: { agent?: Agent; onDone: () => void }) {
  const queries = useQueryClient();
  const existing = agent?.config.tools ?? [];
  const [others, setOthers] = useState<Tool[]>(
    existing.filter((t) => t.type !== 'memory_search' && t.type !== 'memory_add'),
  );
  const [newTool, setNewTool] = useState<{
    name: string;
    url: string;
    method: string;
    description: string;
    header: string;
    value: string;
  }>();
  const save = useMutation({
    mutationFn: (body: AgentInput) =>
      agent
        ? must(api.PATCH('/agents/{agent_id}', { params: { path: { agent_id: agent.id } }, body }))
        : must(api.POST('/agents', { body })),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['agents'] });
      onDone();
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const tools: ToolInput[] = [];
    for (const type of ['memory_search', 'memory_add'] as const) if (form.get(type)) tools.push({ type });
    tools.push(...others.map(keepTool));
    if (newTool?.name && newTool.url)
      tools.push({
        type: 'http',
        name: newTool.name,
        url: newTool.url,
        method: newTool.method as 'GET' | 'POST',
        description: newTool.description,
        ...(newTool.header ? { headers: { [newTool.header]: newTool.value } } : {}),
      });
    const temperature = String(form.get('temperature') ?? '');
    save.mutate({
      name: String(form.get('name')),
      type: String(form.get('type')) as AgentInput['type'],
      description: String(form.get('description') ?? ''),
      memory_types: MEMORY_TYPES.filter((m) => form.get(`mem_${m}`)),
      config: {
        ...(form.get('model') ? { model: String(form.get('model')) } : {}),
        ...(temperature !== '' ? { temperature: Number(temperature) } : {}),
        system_prompt: String(form.get('system_prompt') ?? ''),
        tools,
      },
    });
  };
  const has = (type: string) => existing.some((t) => t.type === type);
  return (
    <form className="card form" onSubmit={submit} aria-label={agent ? `Edit ${agent.name}` : 'New agent'}>
      <h2>{agent ? `Edit ${agent.name}` : 'New agent'}</h2>
      <div className="grid">
        <Field label="Name">{(id) => <input id={id} name="name" required defaultValue={agent?.name} />}</Field>
        <Field label="Type">
          {(id) => (
            <select id={id} name="type" defaultValue={agent?.type ?? 'assistant'}>
              {TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Model">
          {(id) => <input id={id} name="model" defaultValue={agent?.config.model} placeholder="provider default" />}
        </Field>
        <Field label="Temperature (0 to 2)">
          {(id) => (
            <input
              id={id}
              name="temperature"
              type="number"
              min={0}
              max={2}
              step={0.1}
              defaultValue={agent?.config.temperature}
            />
          )}
        </Field>
      </div>
      <Field label="Description">
        {(id) => <input id={id} name="description" defaultValue={agent?.description} />}
      </Field>
      <Field label="System prompt">
        {(id) => <textarea id={id} name="system_prompt" rows={3} defaultValue={agent?.config.system_prompt} />}
      </Field>
      <fieldset>
        <legend>Memory types</legend>
        {MEMORY_TYPES.map((m) => (
          <label key={m} className="check">
            <input
              type="checkbox"
              name={`mem_${m}`}
              defaultChecked={agent ? agent.memory_types.includes(m) : m !== 'procedural'}
            />{' '}
            {m}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Tools</legend>
        <label className="check">
          <input type="checkbox" name="memory_search" defaultChecked={agent ? has('memory_search') : true} />{' '}
          memory_search
        </label>
        <label className="check">
          <input type="checkbox" name="memory_add" defaultChecked={has('memory_add')} /> memory_add
        </label>
        <ul className="plain">
          {others.map((tool, i) => (
            <li key={i}>
              {toolLabel(tool)}
              {'header_names' in tool && tool.header_names?.length
                ? tool.header_names.map((h) => (
                    <span key={h} className="badge">
                      {h}: set
                    </span>
                  ))
                : null}{' '}
              <button type="button" onClick={() => setOthers(others.filter((_, j) => j !== i))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        {newTool ? (
          <div className="grid">
            {(['name', 'url', 'description', 'header', 'value'] as const).map((key) => (
              <Field
                key={key}
                label={
                  {
                    name: 'Tool name',
                    url: 'URL',
                    description: 'Description',
                    header: 'Header name',
                    value: 'Header value (write-only)',
                  }[key]
                }
              >
                {(id) => (
                  <input
                    id={id}
                    type={key === 'value' ? 'password' : 'text'}
                    value={newTool[key]}
                    onChange={(e) => setNewTool({ ...newTool, [key]: e.target.value })}
                  />
                )}
              </Field>
            ))}
            <Field label="Method">
              {(id) => (
                <select
                  id={id}
                  value={newTool.method}
                  onChange={(e) => setNewTool({ ...newTool, method: e.target.value })}
                >
                  {['POST', 'GET', 'PUT', 'PATCH', 'DELETE'].map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              )}
            </Field>
          </div>
        ) : (
          <button
            type="button"
            onClick={() => setNewTool({ name: '', url: '', method: 'POST', description: '', header: '', value: '' })}
          >
            Add an HTTP tool
          </button>
        )}
      </fieldset>
      <ErrorNote error={save.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {agent ? 'Save' : 'Create agent'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
