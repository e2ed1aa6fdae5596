import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must } from '../api';
import { useSession } from '../session';
import { ConfirmButton, CopyButton, ErrorNote, Field, Loading, when } from '../ui';

const EVENTS = [
  'agent.created',
  'agent.updated',
  'agent.message.created',
  'agent.message.completed',
  'workflow.execution.started',
  'workflow.execution.completed',
  'workflow.execution.failed',
  'memory.consolidated',
  'billing.credits.low',
  'billing.purchase.completed',
];

export function WebhooksPage() {
  const session = useSession();
  const queries = useQueryClient();
  const [selected, setSelected] = useState<string>();
  const [secret, setSecret] = useState<string>();
  const canWrite = session.can('webhooks:write');
  const list = useQuery({
    queryKey: ['webhooks'],
    queryFn: () => must(api.GET('/webhooks', { params: { query: { per_page: 100 } } })),
  });
  const changed = () => queries.invalidateQueries({ queryKey: ['webhooks'] });
  const create = useMutation({
    mutationFn: (body: { url: string; events: string[] }) => must(api.POST('/webhooks', { body })),
    onSuccess: (hook) => {
      setSecret(hook.signing_secret);
      setSelected(hook.id);
      void changed();
    },
  });
  const current = list.data?.items.find((w) => w.id === selected);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="muted">
        Every delivery is signed twice: <code>X-Service-Signature</code> and the Standard Webhooks headers (
        <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>), so a receiver can
        verify it with a Standard Webhooks library (<code>standardwebhooks</code> for Node, Python, Go and more) and the
        signing secret. Reject timestamps older than 5 minutes.
      </p>
      {canWrite ? (
        <form
          className="card form"
          aria-label="New subscription"
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget);
            const events = EVENTS.filter((ev) => form.get(ev));
            create.mutate({ url: String(form.get('url')), events: events.length ? events : ['*'] });
          }}
        >
          <h2>New subscription</h2>
          <Field label="Endpoint URL">
            {(id) => <input id={id} name="url" type="url" required placeholder="https://example.com/hooks" />}
          </Field>
          <fieldset>
            <legend>Events (none checked: all)</legend>
            {EVENTS.map((ev) => (
              <label key={ev} className="check">
                <input type="checkbox" name={ev} /> {ev}
              </label>
            ))}
          </fieldset>
          <ErrorNote error={create.error} />
          <button type="submit" className="primary" disabled={create.isPending}>
            Subscribe
          </button>
        </form>
      ) : null}
      {secret ? (
        <div className="card notice" role="status">
          Signing secret (shown once): <code className="secret">{secret}</code> <CopyButton text={secret} />
          <button type="button" onClick={() => setSecret(undefined)}>
            Done
          </button>
        </div>
      ) : null}
      <ErrorNote error={list.error} />
      {list.isPending ? <Loading what="webhooks" /> : null}
      <ul className="cards">
        {list.data?.items.map((w) => (
          <li key={w.id} className={`card ${w.id === selected ? 'selected' : ''}`}>
            <div className="heading">
              <h2 className="url">{w.url}</h2>
              <span className={`badge ${w.status}`}>{w.status}</span>
            </div>
            <p className="muted small">
              {w.events.join(', ')} · <code>{w.id}</code>
              {w.failure_reason ? <> · failed: {w.failure_reason}</> : null}
            </p>
            <button
              type="button"
              onClick={() => setSelected(w.id === selected ? undefined : w.id)}
              aria-expanded={w.id === selected}
            >
              {w.id === selected ? 'Hide deliveries' : 'Deliveries'}
            </button>
          </li>
        ))}
      </ul>
      {current ? (
        <WebhookDetail
          key={current.id}
          hook={current}
          canWrite={canWrite}
          onSecret={setSecret}
          onDeleted={() => setSelected(undefined)}
        />
      ) : null}
    </section>
  );
}

function WebhookDetail({
  hook,
  canWrite,
  onSecret,
  onDeleted,
}: {
  hook: { id: string; url: string; status: string };
  canWrite: boolean;
  onSecret: (s: string) => void;
  onDeleted: () => void;
}) {
  const queries = useQueryClient();
  const [open, setOpen] = useState<string>();
  const path = { webhook_id: hook.id };
  const deliveries = useQuery({
    queryKey: ['deliveries', hook.id],
    refetchInterval: 3000,
    queryFn: () => must(api.GET('/webhooks/{webhook_id}/deliveries', { params: { path, query: { limit: 50 } } })),
  });
  const changed = async () => {
    await queries.invalidateQueries({ queryKey: ['deliveries', hook.id] });
    await queries.invalidateQueries({ queryKey: ['delivery'] });
    await queries.invalidateQueries({ queryKey: ['webhooks'] });
  };
  const test = useMutation({
    mutationFn: () =>
      must(api.POST('/webhooks/{webhook_id}/test', { params: { path }, body: { event_type: 'agent.created' } })),
    onSettled: changed,
  });
  const rotate = useMutation({
    mutationFn: () => must(api.POST('/webhooks/{webhook_id}/rotate-secret', { params: { path }, body: {} })),
    onSuccess: (r) => onSecret(r.signing_secret),
  });
  const reactivate = useMutation({
    mutationFn: () => must(api.PATCH('/webhooks/{webhook_id}', { params: { path }, body: { status: 'active' } })),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE('/webhooks/{webhook_id}', { params: { path } })),
    onSuccess: async () => {
      onDeleted();
      await changed();
    },
  });
  const resend = useMutation({
    mutationFn: (id: string) =>
      must(
        api.POST('/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { ...path, delivery_id: id } },
        }),
      ),
    onSettled: changed,
  });
  return (
    <div className="card" aria-label={`Deliveries of ${hook.url}`} role="region">
      <h2>Deliveries of {hook.url}</h2>
      {canWrite ? (
        <div className="actions">
          <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
            Send a test event
          </button>
          <button type="button" onClick={() => rotate.mutate()}>
            Rotate secret
          </button>
          {hook.status !== 'active' ? (
            <button type="button" onClick={() => reactivate.mutate()}>
              Reactivate
            </button>
          ) : null}
          <ConfirmButton label="Delete" onConfirm={() => remove.mutate()} />
        </div>
      ) : null}
      {test.data ? (
        <p role="status">
          Test {test.data.success ? 'delivered' : 'failed'}: {test.data.response_status ?? test.data.error} in{' '}
          {test.data.response_time_ms} ms
        </p>
      ) : null}
      {rotate.data ? (
        <p className="muted">The old secret keeps signing until {when(rotate.data.previous_secret_expires_at)}.</p>
      ) : null}
      <ErrorNote
        error={deliveries.error ?? test.error ?? rotate.error ?? resend.error ?? remove.error ?? reactivate.error}
      />
      {deliveries.isPending ? <Loading what="deliveries" /> : null}
      <ul className="plain deliveries" aria-label="Delivery log">
        {deliveries.data?.items.map((d) => (
          <li key={d.id} data-testid="delivery">
            <div className="row">
              <span className={`badge ${d.status}`}>{d.status}</span>
              <span>{d.event_type}</span>
              {d.test ? <span className="badge">test</span> : null}
              <span className="muted small">
                {d.attempts} attempt{d.attempts === 1 ? '' : 's'} · last {d.response_status ?? d.last_error ?? '—'} ·{' '}
                {when(d.created_at)}
              </span>
              <button
                type="button"
                onClick={() => setOpen(open === d.id ? undefined : d.id)}
                aria-expanded={open === d.id}
              >
                Attempts
              </button>
              {canWrite && d.status !== 'pending' ? (
                <button type="button" onClick={() => resend.mutate(d.id)} disabled={resend.isPending}>
                  Resend
                </button>
              ) : null}
            </div>
            {open === d.id ? <Attempts webhookId={hook.id} deliveryId={d.id} /> : null}
          </li>
        ))}
      </ul>
      {deliveries.data && !deliveries.data.items.length ? <p className="muted">No deliveries yet.</p> : null}
    </div>
  );
}

function Attempts({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) {
  const one = useQuery({
    queryKey: ['delivery', deliveryId],
    queryFn: () =>
      must(
        api.GET('/webhooks/{webhook_id}/deliveries/{delivery_id}', {
          params: { path: { webhook_id: webhookId, delivery_id: deliveryId } },
        }),
      ),
  });
  if (one.error) return <ErrorNote error={one.error} />;
  if (!one.data) return <Loading what="attempts" />;
  return (
    <ol className="attempts">
      {one.data.attempt_log.map((a) => (
        <li key={a.number}>
          #{a.number} {when(a.attempted_at)} · {a.success ? 'ok' : 'failed'} · {a.response_status ?? a.error} ·{' '}
          {a.duration_ms} ms
          {a.response_body ? <pre className="json">{a.response_body.slice(0, 500)}</pre> : null}
        </li>
      ))}
    </ol>
  );
}
