import { useId, useState, type MouseEvent, type ReactNode } from 'react';
import { ApiError } from './api';
import { href, navigate } from './router';

/** An error as the API gave it: a 403 says what was refused, never a blank page. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    const title =
      error.status === 403
        ? 'Forbidden (403): your role or key may not do this'
        : error.status === 402
          ? 'Out of credits (402)'
          : `Error ${error.status}`;
    return (
      <div role="alert" className="error">
        <strong>{title}</strong> {error.body.message}
        {error.body.details?.length ? (
          <ul>
            {error.body.details.map((d, i) => (
              <li key={i}>
                <code>{d.field}</code>: {d.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    );
  }
  return (
    <div role="alert" className="error">
      {error instanceof Error ? error.message : String(error)}
    </div>
  );
}

export function Link({ to, children, className }: { to: string; children: ReactNode; className?: string }) {
  const onClick = (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={href(to)} onClick={onClick} className={className}>
      {children}
    </a>
  );
}

export function Field({
  label,
  children,
  hint,
}: {
  label: string;
  children: (id: string) => ReactNode;
  hint?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint ? <small>{hint}</small> : null}
    </div>
  );
}

/** A destructive action asks first, in the page (no window.confirm: it cannot be styled or tested). */
export function ConfirmButton({ label, onConfirm, busy }: { label: string; onConfirm: () => void; busy?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={`Confirm ${label.toLowerCase()}`}>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setDone(true));
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export function Pager({
  page,
  perPage,
  total,
  onPage,
}: {
  page: number;
  perPage: number;
  total: number;
  onPage: (p: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages} ({total})
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted" data-loading>
      Loading {what}…
    </p>
  );
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function Json({ value }: { value: unknown }) {
  // Focusable: a long value scrolls, and a keyboard user must be able to scroll it.
  return (
    <pre className="json" tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
