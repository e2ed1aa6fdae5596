/**
 * A value made on its first use and kept: for modules that an idle process should not load (the
 * MCP SDK, undici: docs/performance.md, idle memory). A load that throws is not kept, so the next
 * call tries again.
 */
export function lazy<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}
