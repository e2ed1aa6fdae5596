/// <reference types="jest" />

/**
 * An e2e suite's setup in one line: `start` runs in jest's beforeAll and the value's `stop()` in
 * afterAll. The returned handle reads the started value, so a suite writes `harness.client` where
 * it used to declare `let` handles and assign them in its own beforeAll.
 *
 * ```ts
 * describe('webhook deliveries', () => {
 *   const harness = suiteFixture(() => startWebhookHarness({ services: ['webhook'] }));
 *   it('delivers', async () => {
 *     await harness.client.createWebhook({ tenantId, url: harness.receiver.url('/in'), events: ['*'] });
 *   });
 * });
 * ```
 *
 * Read the handle only inside tests and hooks: while the suite is being declared nothing has
 * started yet, and a read throws rather than hand back `undefined`.
 */
export function suiteFixture<T extends { stop(): Promise<void> }>(start: () => Promise<T>, timeoutMs?: number): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    await started?.stop();
  }, timeoutMs);
  return new Proxy({} as T, {
    get(_target, key) {
      if (!started) throw new Error(`suite fixture read (${String(key)}) before its beforeAll started it`);
      const value: unknown = Reflect.get(started, key);
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}
