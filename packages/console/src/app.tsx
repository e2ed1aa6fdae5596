import { useEffect, useState, type FormEvent } from 'react';
import { lazyPage } from './lazy-page';
import { useSession, useSessionState } from './session';
import { usePath } from './router';
import { ErrorNote, Field, Link, Loading } from './ui';
import { AgentsPage } from './pages/agents';
import { ChatPage } from './pages/chat';
import { MemoryPage } from './pages/memory';
import { KeysPage } from './pages/keys';
import { McpPage } from './pages/mcp';
import { WebhooksPage } from './pages/webhooks';

// The graph and chart libraries are the largest: the first page loads without them, and they are
// fetched once the signed-in console is idle, so moving to their pages waits for data only.
const workflows = lazyPage(() => import('./pages/workflows'));
const credits = lazyPage(() => import('./pages/credits'));
const WorkflowsPage = workflows.Page;
const CreditsPage = credits.Page;
const PREFETCH_AFTER_MS = 1000;

const PAGES = [
  ['agents', 'Agents'],
  ['chat', 'Chat'],
  ['memory', 'Memory'],
  ['workflows', 'Workflows'],
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['credits', 'Credits'],
  ['mcp', 'MCP'],
] as const;

export function App() {
  const { session, restoring } = useSessionState();
  if (session) return <Shell />;
  return restoring ? (
    <main id="main" className="signin">
      <Loading what="your session" />
    </main>
  ) : (
    <SignIn />
  );
}

function Shell() {
  const session = useSession();
  const [page = 'agents', ...rest] = usePath();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    const timer = setTimeout(
      () => void Promise.all([workflows.preload(), credits.preload()]).catch(() => undefined),
      PREFETCH_AFTER_MS,
    );
    return () => clearTimeout(timer);
  }, []);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <strong className="brand">Agent Platform</strong>
        <button
          type="button"
          className="menu"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <label className="tenant">
          <span>Tenant</span>
          <select value={session.tenant.id} onChange={(e) => session.switchTenant(e.target.value)}>
            {session.tenants.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.role})
              </option>
            ))}
          </select>
        </label>
        <span className="muted who">{session.email}</span>
        <button type="button" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </header>
      <nav id="nav" aria-label="Console" className={menuOpen ? 'open' : ''} onClick={() => setMenuOpen(false)}>
        <ul>
          {PAGES.map(([id, label]) => (
            <li key={id}>
              <Link to={`/${id}`} className={id === page ? 'current' : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Page page={page} rest={rest} />
      </main>
    </div>
  );
}

function Page({ page, rest }: { page: string; rest: string[] }) {
  switch (page) {
    case 'agents':
      return <AgentsPage />;
    case 'chat':
      return <ChatPage agentId={rest[0]} />;
    case 'memory':
      return <MemoryPage />;
    case 'workflows':
      return <WorkflowsPage workflowId={rest[0]} executionId={rest[1]} />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'keys':
      return <KeysPage />;
    case 'credits':
      return <CreditsPage />;
    case 'mcp':
      return <McpPage />;
    default:
      return <h1>Not found</h1>;
  }
}

function SignIn() {
  const { signIn, signUp } = useSessionState();
  const [mode, setMode] = useState<'in' | 'up'>('in');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setBusy(true);
    setError(undefined);
    try {
      if (mode === 'in') await signIn(email, password);
      else await signUp({ email, password, full_name: String(form.get('full_name') || '') || undefined });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="signin">
      <h1>Agent Platform</h1>
      <form onSubmit={(e) => void submit(e)} className="card" aria-label={mode === 'in' ? 'Sign in' : 'Sign up'}>
        <h2>{mode === 'in' ? 'Sign in' : 'Create an account'}</h2>
        {mode === 'up' ? (
          <Field label="Full name">{(id) => <input id={id} name="full_name" autoComplete="name" />}</Field>
        ) : null}
        <Field label="E-mail">
          {(id) => <input id={id} name="email" type="email" required autoComplete="email" />}
        </Field>
        <Field label="Password" hint={mode === 'up' ? '8 to 72 bytes' : undefined}>
          {(id) => (
            <input
              id={id}
              name="password"
              type="password"
              required
              minLength={8}
              autoComplete={mode === 'in' ? 'current-password' : 'new-password'}
            />
          )}
        </Field>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {mode === 'in' ? 'Sign in' : 'Sign up'}
        </button>
        <button type="button" className="link" onClick={() => setMode(mode === 'in' ? 'up' : 'in')}>
          {mode === 'in' ? 'No account? Sign up' : 'Have an account? Sign in'}
        </button>
        <p className="muted">
          The access token is kept in this page&apos;s memory only; a cookie your browser sends to the sign-in renewal
          alone keeps you signed in across a reload.
        </p>
      </form>
    </main>
  );
}
