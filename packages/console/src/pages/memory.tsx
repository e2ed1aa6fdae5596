import { Fragment, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Papa from 'papaparse';
import type { operations } from '@agentplatform/sdk/src/api-types';
import { api, must } from '../api';
import { useSession } from '../session';
import { ConfirmButton, ErrorNote, Field, Loading, Pager, when } from '../ui';
import { useAllAgents } from './agents';

type MemoryType = 'semantic' | 'episodic' | 'procedural';
type ImportItem = NonNullable<
  operations['postMemoryBatch']['requestBody']
>['content']['application/json']['items'][number];
const TYPES: MemoryType[] = ['semantic', 'episodic', 'procedural'];
const PER_PAGE = 20;
/** Items per batch request: progress moves in steps a person can see, each well under the body limit. */
const IMPORT_BATCH = 50;

/** The words of the query found in the text, marked: what the lexical half of the search matched. */
export function highlight(text: string, query: string): ReactNode {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])];
  if (!words.length) return text;
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'giu');
  return text
    .split(pattern)
    .map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : <Fragment key={i}>{part}</Fragment>));
}

/** A JSON array (of strings or {content, memory_type?, metadata?}) or a CSV with a `content` column. */
export function parseImport(name: string, text: string): ImportItem[] {
  const rows: unknown[] = name.toLowerCase().endsWith('.csv')
    ? Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data
    : JSON.parse(text);
  if (!Array.isArray(rows)) throw new Error('The JSON file must hold an array');
  return rows.map((row, i) => {
    if (typeof row === 'string') return { content: row };
    const r = row as Record<string, unknown>;
    if (typeof r.content !== 'string' || !r.content) throw new Error(`Item ${i + 1} has no content`);
    const type = r.memory_type as MemoryType | undefined;
    let metadata = r.metadata;
    if (typeof metadata === 'string') metadata = metadata ? JSON.parse(metadata) : undefined;
    return {
      content: r.content,
      ...(type ? { memory_type: type } : {}),
      ...(metadata ? { metadata: metadata as Record<string, unknown> } : {}),
    };
  });
}

export function MemoryPage() {
  const session = useSession();
  const agents = useAllAgents();
  const [agentId, setAgentId] = useState('');
  const [type, setType] = useState<MemoryType | ''>('');
  const [page, setPage] = useState(1);
  const [query, setQuery] = useState('');
  const [progress, setProgress] = useState<{ done: number; total: number; error?: unknown }>();
  const queries = useQueryClient();
  const agent = agentId || agents.data?.agents[0]?.id || '';
  const list = useQuery({
    queryKey: ['memory', agent, type, page],
    enabled: !!agent,
    queryFn: () =>
      must(
        api.GET('/memory', {
          params: { query: { agent_id: agent, page, per_page: PER_PAGE, ...(type ? { memory_type: type } : {}) } },
        }),
      ),
  });
  const changed = () => queries.invalidateQueries({ queryKey: ['memory'] });
  const add = useMutation({
    mutationFn: (body: { content: string; memory_type: MemoryType }) =>
      must(api.POST('/memory', { body: { agent_id: agent, ...body } })),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/memory/{memory_id}', { params: { path: { memory_id: id } } })),
    onSuccess: changed,
  });
  const search = useMutation({
    mutationFn: (q: string) =>
      must(
        api.POST('/memory/search', {
          body: { agent_id: agent, query: q, top_k: 10, ...(type ? { memory_type: type } : {}) },
        }),
      ),
  });
  const canWrite = session.can('memory:write');

  const importFile = async (file: File) => {
    let items: ImportItem[];
    try {
      items = parseImport(file.name, await file.text());
    } catch (error) {
      setProgress({ done: 0, total: 0, error });
      return;
    }
    setProgress({ done: 0, total: items.length });
    for (let at = 0; at < items.length; at += IMPORT_BATCH) {
      try {
        await must(api.POST('/memory/batch', { body: { agent_id: agent, items: items.slice(at, at + IMPORT_BATCH) } }));
      } catch (error) {
        setProgress({ done: at, total: items.length, error });
        return;
      }
      setProgress({ done: Math.min(at + IMPORT_BATCH, items.length), total: items.length });
    }
    await changed();
  };

  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      <div className="grid">
        <Field label="Agent">
          {(id) => (
            <select id={id} value={agent} onChange={(e) => (setAgentId(e.target.value), setPage(1), search.reset())}>
              {agents.data?.agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Type">
          {(id) => (
            <select id={id} value={type} onChange={(e) => (setType(e.target.value as MemoryType | ''), setPage(1))}>
              <option value="">all types</option>
              {TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorNote error={agents.error ?? list.error ?? add.error ?? remove.error} />
      {agents.data && !agents.data.agents.length ? (
        <p className="muted">Create an agent first: memories belong to an agent.</p>
      ) : null}
      {agent ? (
        <>
          <form
            className="card form"
            aria-label="Search memory"
            onSubmit={(e) => {
              e.preventDefault();
              if (query.trim()) search.mutate(query.trim());
            }}
          >
            <h2>Search</h2>
            <div className="row">
              <Field label="Query">
                {(id) => <input id={id} type="search" value={query} onChange={(e) => setQuery(e.target.value)} />}
              </Field>
              <button type="submit" className="primary" disabled={search.isPending}>
                Search
              </button>
            </div>
            <ErrorNote error={search.error} />
            {search.data ? (
              <ol className="results" aria-label="Search results">
                {search.data.results.map((r) => (
                  <li key={r.id}>
                    <span className="score" title="hybrid score, 0 to 1">
                      {r.score.toFixed(3)}
                    </span>{' '}
                    <span className="badge">{r.memory_type}</span> {highlight(r.content, search.variables ?? '')}
                  </li>
                ))}
                {!search.data.results.length ? <li className="muted">Nothing found.</li> : null}
              </ol>
            ) : null}
          </form>
          {canWrite ? (
            <div className="split2">
              <form
                className="card form"
                aria-label="Add a memory"
                onSubmit={(e) => {
                  e.preventDefault();
                  const form = new FormData(e.currentTarget);
                  const el = e.currentTarget;
                  add.mutate(
                    {
                      content: String(form.get('content')),
                      memory_type: String(form.get('memory_type')) as MemoryType,
                    },
                    { onSuccess: () => el.reset() },
                  );
                }}
              >
                <h2>Add a memory</h2>
                <Field label="Content">{(id) => <textarea id={id} name="content" rows={2} required />}</Field>
                <Field label="Memory type">
                  {(id) => (
                    <select id={id} name="memory_type">
                      {TYPES.map((t) => (
                        <option key={t}>{t}</option>
                      ))}
                    </select>
                  )}
                </Field>
                <button type="submit" className="primary" disabled={add.isPending}>
                  Add
                </button>
              </form>
              <div className="card form">
                <h2>Import</h2>
                <Field
                  label="JSON or CSV file"
                  hint="JSON: an array of strings or {content, memory_type, metadata}; CSV: a content column"
                >
                  {(id) => (
                    <input
                      id={id}
                      type="file"
                      accept=".json,.csv,application/json,text/csv"
                      onChange={(e: FormEvent<HTMLInputElement>) => {
                        const file = e.currentTarget.files?.[0];
                        if (file) void importFile(file);
                      }}
                    />
                  )}
                </Field>
                {progress ? (
                  <>
                    <progress max={progress.total || 1} value={progress.done} aria-label="Import progress" />
                    <p role="status">
                      {progress.done} of {progress.total} imported
                    </p>
                    <ErrorNote error={progress.error} />
                  </>
                ) : null}
              </div>
            </div>
          ) : null}
          <h2>Memories</h2>
          {list.isPending ? <Loading what="memories" /> : null}
          <ul className="cards">
            {list.data?.items.map((m) => (
              <li key={m.id} className="card">
                <p>{m.content}</p>
                <p className="muted small">
                  <span className="badge">{m.memory_type}</span> <code>{m.id}</code> · {when(m.created_at)}
                  {Object.keys(m.metadata).length ? <> · {JSON.stringify(m.metadata)}</> : null}
                </p>
                {canWrite ? <ConfirmButton label="Delete" onConfirm={() => remove.mutate(m.id)} /> : null}
              </li>
            ))}
          </ul>
          {list.data ? <Pager page={page} perPage={PER_PAGE} total={list.data.total} onPage={setPage} /> : null}
        </>
      ) : null}
    </section>
  );
}
