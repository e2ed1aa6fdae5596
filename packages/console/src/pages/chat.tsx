import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { operations } from '@agentplatform/sdk/src/api-types';
import { api, ApiError, authorizedUrl, must, renewAccessToken } from '../api';
import { useSession } from '../session';
import { navigate } from '../router';
import { ErrorNote, Field, Json, Loading, when } from '../ui';
import { useAllAgents } from './agents';

type Reply = operations['postAgentsAgentIdChat']['responses'][200]['content']['application/json'];
type Step = Reply['steps'][number];

interface Turn {
  user: string;
  content: string;
  steps: Step[];
  done?: Reply;
  error?: unknown;
}

/** Sends one chat turn as SSE and reports each event as it arrives (DESIGN 6 and 9). */
async function streamChat(
  agentId: string,
  body: { message: string; session_id?: string },
  on: {
    start: (sessionId: string) => void;
    delta: (text: string) => void;
    step: (step: Step) => void;
    done: (reply: Reply) => void;
  },
): Promise<void> {
  const send = () => {
    const { url, headers } = authorizedUrl(`/agents/${encodeURIComponent(agentId)}/chat`);
    return fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
  };
  let response = await send();
  if (response.status === 401 && (await renewAccessToken())) response = await send();
  if (!response.ok || !response.body) {
    const error = await response.json().catch(() => ({}));
    throw new ApiError(response.status, {
      error: error.error ?? 'http_error',
      message: error.message ?? response.statusText,
      details: error.details,
    });
  }
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events) {
    const data = JSON.parse(event.data);
    if (event.event === 'start') on.start(data.session_id);
    else if (event.event === 'delta') on.delta(data.content);
    else if (event.event === 'step') on.step(data);
    else if (event.event === 'done') on.done(data);
    else if (event.event === 'error') throw new ApiError(500, { error: data.error, message: data.message });
  }
}

export function ChatPage({ agentId }: { agentId?: string }) {
  const session = useSession();
  const agents = useAllAgents();
  const [sessionId, setSessionId] = useState<string | undefined>();
  // The session whose stored history is shown: the one picked from the list. Turns sent here are
  // shown as they stream, so the history is not read again under them.
  const [historyOf, setHistoryOf] = useState<string | undefined>();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const queries = useQueryClient();
  const agent = agents.data?.agents.find((a) => a.id === agentId);
  const sessions = useQuery({
    queryKey: ['sessions', agentId],
    enabled: !!agentId,
    queryFn: () =>
      must(
        api.GET('/agents/{agent_id}/sessions', {
          params: { path: { agent_id: agentId ?? '' }, query: { per_page: 50 } },
        }),
      ),
  });
  const history = useQuery({
    queryKey: ['messages', agentId, historyOf],
    enabled: !!agentId && !!historyOf,
    staleTime: Infinity,
    queryFn: () =>
      must(
        api.GET('/agents/{agent_id}/sessions/{session_id}/messages', {
          params: { path: { agent_id: agentId ?? '', session_id: historyOf ?? '' }, query: { per_page: 100 } },
        }),
      ),
  });

  const pick = (id: string | undefined) => {
    setSessionId(id);
    setHistoryOf(id);
    if (id) void queries.invalidateQueries({ queryKey: ['messages', agentId, id] });
    setTurns([]);
  };

  const send = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    const message = String(form.get('message') ?? '').trim();
    const chosen = String(form.get('session_id') ?? '').trim() || sessionId;
    if (!message || !agentId) return;
    const index = turns.length;
    const patch = (change: (turn: Turn) => Turn) => setTurns((all) => all.map((t, i) => (i === index ? change(t) : t)));
    setTurns((all) => [...all, { user: message, content: '', steps: [] }]);
    setBusy(true);
    formEl.reset();
    try {
      await streamChat(
        agentId,
        { message, ...(chosen ? { session_id: chosen } : {}) },
        {
          start: (id) => {
            if (id && id !== sessionId) setSessionId(id);
          },
          delta: (text) => patch((t) => ({ ...t, content: t.content + text })),
          step: (step) => patch((t) => ({ ...t, steps: [...t.steps, step] })),
          done: (reply) => patch((t) => ({ ...t, done: reply, content: reply.content })),
        },
      );
    } catch (error) {
      patch((t) => ({ ...t, error }));
    } finally {
      setBusy(false);
      void queries.invalidateQueries({ queryKey: ['sessions', agentId] });
      void queries.invalidateQueries({ queryKey: ['credits'] });
    }
  };

  return (
    <section aria-labelledby="chat-title">
      <h1 id="chat-title">Chat playground</h1>
      <Field label="Agent">
        {(id) => (
          <select
            id={id}
            value={agentId ?? ''}
            onChange={(e) => (pick(undefined), navigate(`/chat/${e.target.value}`))}
          >
            <option value="">Choose an agent…</option>
            {agents.data?.agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {agents.isPending ? <Loading what="agents" /> : null}
      <ErrorNote error={agents.error ?? sessions.error ?? history.error} />
      {agentId && agent ? (
        <div className="split">
          <aside aria-label="Sessions" className="card">
            <h2>Sessions</h2>
            <button type="button" onClick={() => pick(undefined)}>
              New session
            </button>
            {sessions.isPending ? <Loading what="sessions" /> : null}
            <ul className="plain">
              {sessions.data?.sessions.map((s) => (
                <li key={s.id}>
                  <button
                    type="button"
                    className={s.id === sessionId ? 'link current' : 'link'}
                    onClick={() => pick(s.id)}
                  >
                    {s.title || s.id}
                  </button>
                  <small className="muted">
                    {' '}
                    {s.message_count} messages · {when(s.last_message_at)}
                  </small>
                </li>
              ))}
            </ul>
          </aside>
          <div className="conversation">
            <p className="muted">
              Session: <code>{sessionId ?? 'new'}</code>
            </p>
            <ol className="messages" aria-label="Messages" aria-live="polite">
              {history.data?.messages
                .slice()
                .sort((a, b) => a.created_at.localeCompare(b.created_at))
                .map((m) =>
                  m.role === 'tool' && m.step ? (
                    <li key={m.id} className="step">
                      <StepView step={m.step} />
                    </li>
                  ) : (
                    <li key={m.id} className={`msg ${m.role}`}>
                      <span className="who">{m.role}</span> {m.content}
                    </li>
                  ),
                )}
              {turns.map((turn, i) => (
                <TurnView key={i} turn={turn} />
              ))}
            </ol>
            {session.can('agents:write') ? (
              <form onSubmit={(e) => void send(e)} className="composer" aria-label="Send a message">
                {!sessionId ? (
                  <Field label="Session id (optional, your own)" hint="1 to 128 of A-Z a-z 0-9 . _ : -">
                    {(id) => <input id={id} name="session_id" pattern="[A-Za-z0-9._:\-]{1,128}" />}
                  </Field>
                ) : null}
                <Field label="Message">{(id) => <textarea id={id} name="message" rows={2} required />}</Field>
                <button type="submit" className="primary" disabled={busy}>
                  {busy ? 'Sending…' : 'Send'}
                </button>
              </form>
            ) : (
              <p className="muted">Your role may read conversations but not chat.</p>
            )}
          </div>
        </div>
      ) : null}
    </section>
  );
}

function StepView({ step }: { step: Step }) {
  return (
    <details className="step" open>
      <summary>
        Tool <code>{step.tool}</code> · {step.duration_ms} ms{' '}
        {step.error ? <span className="badge failed">error</span> : null}
      </summary>
      <div className="small">
        Arguments: <Json value={step.arguments} />
        {step.error ? (
          <p className="error">{step.error}</p>
        ) : (
          <>
            Output: <Json value={step.output} />
          </>
        )}
      </div>
    </details>
  );
}

function TurnView({ turn }: { turn: Turn }) {
  return (
    <>
      <li className="msg user">
        <span className="who">user</span> {turn.user}
      </li>
      {turn.steps.map((step, i) => (
        <li key={i} className="step" data-testid="tool-step">
          <StepView step={step} />
        </li>
      ))}
      <li className="msg assistant" data-testid="reply">
        <span className="who">assistant</span> {turn.content || (turn.done || turn.error ? '' : '…')}
        {turn.done ? (
          <p className="muted small" data-testid="usage">
            {turn.done.model} · {turn.done.usage.total_tokens} tokens ({turn.done.usage.prompt_tokens} in,{' '}
            {turn.done.usage.completion_tokens} out) · {turn.done.credits_used} credit
            {turn.done.credits_used === 1 ? '' : 's'} · {turn.done.latency_ms} ms
          </p>
        ) : null}
        <ErrorNote error={turn.error} />
      </li>
    </>
  );
}
