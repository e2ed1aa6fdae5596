import { useSyncExternalStore } from 'react';

/** The console's pages live under /console/<page>[/<id>]; the gateway answers each with index.html. */
const BASE = '/console';

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  return () => window.removeEventListener('popstate', listener);
}

export function usePath(): string[] {
  const path = useSyncExternalStore(subscribe, () => window.location.pathname);
  return path.slice(BASE.length).split('/').filter(Boolean);
}

export function navigate(to: string): void {
  window.history.pushState(null, '', BASE + to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function href(to: string): string {
  return BASE + to;
}
