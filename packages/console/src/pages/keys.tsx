import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must } from '../api';
import { useSession, type Scope } from '../session';
import { ConfirmButton, CopyButton, ErrorNote, Field, Loading, when } from '../ui';

const SCOPES: Scope[] = [
  'agents:read',
  'agents:write',
  'memory:read',
  'memory:write',
  'workflows:read',
  'workflows:write',
  'workflows:execute',
  'webhooks:read',
  'webhooks:write',
  'billing:read',
];

export function KeysPage() {
  const session = useSession();
  // A key carries only scopes its creator's role grants (identity refuses others): offer only those.
  const offered = SCOPES.filter((s) => session.can(s));
  const queries = useQueryClient();
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const list = useQuery({ queryKey: ['keys'], queryFn: () => must(api.GET('/auth/api-keys')) });
  const create = useMutation({
    mutationFn: (body: { name: string; scopes: Scope[]; expires_at?: string }) =>
      must(api.POST('/auth/api-keys', { body })),
    onSuccess: (key) => {
      setCreated({ name: key.name, key: key.key });
      void queries.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/auth/api-keys/{key_id}', { params: { path: { key_id: id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['keys'] }),
  });
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <form
        className="card form"
        aria-label="Create an API key"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const expires = String(form.get('expires_at') ?? '');
          create.mutate({
            name: String(form.get('name')),
            scopes: offered.filter((s) => form.get(s)),
            ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
          });
        }}
      >
        <h2>Create a key</h2>
        <div className="grid">
          <Field label="Name">{(id) => <input id={id} name="name" required />}</Field>
          <Field label="Expires (optional)">{(id) => <input id={id} name="expires_at" type="date" />}</Field>
        </div>
        <fieldset>
          <legend>Scopes (within your role)</legend>
          {offered.map((s) => (
            <label key={s} className="check">
              <input type="checkbox" name={s} defaultChecked={s.endsWith(':read')} /> {s}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {created ? (
        <div className="card notice" role="status">
          <p>
            <strong>{created.name}</strong>: copy this key now, it is shown only once.
          </p>
          <code className="secret" data-testid="new-key">
            {created.key}
          </code>{' '}
          <CopyButton text={created.key} />
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      ) : null}
      <ErrorNote error={list.error ?? revoke.error} />
      {list.isPending ? <Loading what="keys" /> : null}
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption>Keys of this tenant</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data?.items.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.key_prefix}…</code>
                </td>
                <td className="small">{k.scopes.join(' ')}</td>
                <td>{when(k.last_used_at)}</td>
                <td>{k.expires_at ? when(k.expires_at) : 'never'}</td>
                <td>
                  <ConfirmButton label="Revoke" onConfirm={() => revoke.mutate(k.id)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data && !list.data.items.length ? <p className="muted">No keys.</p> : null}
    </section>
  );
}
