type Stoppable = { stop(): Promise<void> };

/** Stops what the global setup started (the same process runs both). */
export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as { __apInfra?: Stoppable[] }).__apInfra ?? [];
  await Promise.all(started.splice(0).map((s) => s.stop()));
}
