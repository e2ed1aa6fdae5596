import { useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { ErrorNote, Loading } from './ui';

/**
 * A page whose code is loaded on demand, without Suspense: React holds back content revealed after
 * a Suspense fallback for 300 ms (its throttle), which made these pages show their data some 300 ms
 * late even with their code already fetched. Until the code is here the page shows a loading note
 * of its own; once it is, the page renders as any other.
 */
export function lazyPage<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
): { Page: (props: P) => ReactNode; preload: () => Promise<void> } {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<void> | undefined;
  const preload = () =>
    (loading ??= load().then(
      (module) => {
        loaded = module.default;
      },
      (error: unknown) => {
        // A failed fetch (a new deployment, the network) is tried again on the next visit.
        loading = undefined;
        throw error;
      },
    ));
  function Page(props: P) {
    const [error, setError] = useState<unknown>();
    const [, setReady] = useState(false);
    useEffect(() => {
      if (!loaded) preload().then(() => setReady(true), setError);
    }, []);
    if (error) return <ErrorNote error={error} />;
    if (!loaded) return <Loading what="page" />;
    const Loaded = loaded;
    return <Loaded {...props} />;
  }
  return { Page, preload };
}
