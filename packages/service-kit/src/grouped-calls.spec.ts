import { currentContext, currentRequestId, runWithContext } from './context.js';
import { DomainError, NotFoundError, ValidationError } from './errors.js';
import { answerEach, groupedCall, groupedRequests, type ItemOutcome, type RequestItem } from './grouped-calls.js';
import { toCallError } from './grpc-server.js';
import { createLogger } from './logger.js';

const logger = createLogger('test', 'silent');

/** A fake server: `n` is answered n * 10, a negative `n` is not found, 0 is invalid. */
function answer(n: number): number {
  if (n < 0) throw new NotFoundError('Item');
  if (n === 0) throw ValidationError.field('n', 'must not be 0');
  return n * 10;
}

function fakeServer() {
  const calls: Array<{ kind: 'single' | 'batch'; items: number[]; requestId: string | undefined }> = [];
  let release: (() => void) | undefined;
  let holdNext = false;
  const hold = async () => {
    if (!holdNext) return;
    holdNext = false;
    await new Promise<void>((resolve) => (release = resolve));
  };
  return {
    calls,
    /** The next call waits until `release()`: the calls made meanwhile queue up. */
    holdNextCall: () => (holdNext = true),
    release: () => release?.(),
    async single(n: number): Promise<{ n: number }> {
      calls.push({ kind: 'single', items: [n], requestId: currentRequestId() });
      await hold();
      return { n: answer(n) };
    },
    async batch(items: number[]): Promise<{ outcomes: ItemOutcome[] }> {
      calls.push({ kind: 'batch', items, requestId: currentRequestId() });
      await hold();
      return {
        outcomes: items.map((n) => {
          try {
            return { outcome: { $case: 'done', value: { n: answer(n) } } };
          } catch (error) {
            return { outcome: { $case: 'error', value: toCallError(error, logger, 'Test/Batch') } };
          }
        }),
      };
    },
  };
}

/** Calls `group.call(n)` as request `req_<n>` would. */
const asRequest = <R>(n: number, call: (n: number) => Promise<R>) =>
  runWithContext({ requestId: `req_${n}` }, () => call(n));

const flushMicrotasks = () => new Promise((resolve) => setImmediate(resolve));

describe('groupedCall', () => {
  it('sends a lone call at once as the single call, in its caller context', async () => {
    const server = fakeServer();
    const group = groupedCall({ single: server.single, batch: server.batch, value: (a: { n: number }) => a.n });
    await expect(asRequest(4, group.call)).resolves.toBe(40);
    expect(server.calls).toEqual([{ kind: 'single', items: [4], requestId: 'req_4' }]);
  });

  it('groups the calls made while one is in flight, each answered or failed on its own', async () => {
    const server = fakeServer();
    const group = groupedCall({ single: server.single, batch: server.batch, value: (a: { n: number }) => a.n });
    server.holdNextCall();
    const first = asRequest(1, group.call);
    await flushMicrotasks();
    const rest = [2, -3, 0, 5].map((n) => asRequest(n, group.call));
    server.release();
    const settled = await Promise.allSettled([first, ...rest]);

    expect(server.calls.map(({ kind, items }) => ({ kind, items }))).toEqual([
      { kind: 'single', items: [1] },
      { kind: 'batch', items: [2, -3, 0, 5] },
    ]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as DomainError).code))).toEqual([
      10,
      20,
      'not_found',
      'validation_error',
      50,
    ]);
    // An item's error is the one its single call gives: code, message and field details.
    const invalid = (settled[3] as PromiseRejectedResult).reason as DomainError;
    expect(invalid).toBeInstanceOf(DomainError);
    expect(invalid.message).toBe('Request validation failed');
    expect(invalid.details).toEqual([{ field: 'n', message: 'must not be 0' }]);
    expect(((settled[2] as PromiseRejectedResult).reason as DomainError).message).toBe('Item not found');
  });

  it('sends a later lone item in its own context, not the one of the call that opened the group', async () => {
    const server = fakeServer();
    const group = groupedCall({ single: server.single, batch: server.batch, value: (a: { n: number }) => a.n });
    server.holdNextCall();
    const first = asRequest(1, group.call);
    await flushMicrotasks();
    const second = asRequest(2, group.call);
    server.release();
    await expect(Promise.all([first, second])).resolves.toEqual([10, 20]);
    expect(server.calls).toEqual([
      { kind: 'single', items: [1], requestId: 'req_1' },
      { kind: 'single', items: [2], requestId: 'req_2' },
    ]);
  });

  it("counts a batch call for none of its requests' tenants, a single call for its own", async () => {
    const server = fakeServer();
    const tenants: Array<string | undefined> = [];
    const group = groupedCall({
      single: (n: number) => (tenants.push(currentContext()?.tenantId), server.single(n)),
      batch: (items: number[]) => (tenants.push(currentContext()?.tenantId), server.batch(items)),
      value: (a: { n: number }) => a.n,
    });
    const as = (tenantId: string, n: number) =>
      runWithContext({ requestId: `req_${n}`, tenantId }, () => group.call(n));
    server.holdNextCall();
    const first = as('ten_a', 1);
    await flushMicrotasks();
    const rest = [as('ten_a', 2), as('ten_b', 3)];
    server.release();
    await expect(Promise.all([first, ...rest])).resolves.toEqual([10, 20, 30]);
    expect(server.calls.map(({ kind, requestId }) => ({ kind, requestId }))).toEqual([
      { kind: 'single', requestId: 'req_1' },
      { kind: 'batch', requestId: 'req_1' },
    ]);
    // The batch runs in the context of the call that opened it (ten_a's) but names no tenant.
    expect(tenants).toEqual(['ten_a', undefined]);
  });

  it('falls back to one single call per item, each in its own context, against a server without the batch call', async () => {
    const server = fakeServer();
    const group = groupedCall({
      single: server.single,
      batch: () => {
        throw new DomainError('internal_error', 'The server does not implement the method /Test/Batch');
      },
      value: (a: { n: number }) => a.n,
    });
    server.holdNextCall();
    const first = asRequest(1, group.call);
    await flushMicrotasks();
    const rest = [2, -3].map((n) => asRequest(n, group.call));
    server.release();
    const settled = await Promise.allSettled([first, ...rest]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(server.calls.map(({ items, requestId }) => ({ items, requestId }))).toEqual([
      { items: [1], requestId: 'req_1' },
      { items: [2], requestId: 'req_2' },
      { items: [-3], requestId: 'req_-3' },
    ]);
    await expect(group.many([6, -1])).resolves.toEqual([60, expect.objectContaining({ code: 'not_found' })]);
  });

  it('fails every item of a batch call that fails as a whole, or answers the wrong number of items', async () => {
    const unavailable = new DomainError('service_unavailable', 'down');
    const group = groupedCall({
      single: async (n: number) => n,
      batch: async (items: number[]) => {
        if (items.includes(9)) throw unavailable;
        return { outcomes: [{ outcome: { $case: 'done', value: 1 } }] };
      },
      value: (n: number) => n,
    });
    await expect(group.many([1, 9])).rejects.toBe(unavailable);
    await expect(group.many([1, 2])).rejects.toThrow('the batch call answered 1 of 2 items');
  });
});

describe('read coalescing (coalesce)', () => {
  /** Items `{ tenant, n }`: the key covers both, as a listing's covers its tenant and query. */
  type Read = { tenant: string; n: number };
  const key = (r: Read) => `${r.tenant}/${r.n}`;
  function readServer() {
    const server = fakeServer();
    const coalesced: number[] = [];
    return {
      server,
      coalesced,
      group: groupedCall({
        single: (r: Read) => server.single(r.n),
        batch: (items: Read[]) => server.batch(items.map((r) => r.n)),
        value: (a: { n: number }) => a,
        coalesce: key,
        onCoalesced: (items) => coalesced.push(items),
      }),
    };
  }

  it('sends identical items of one flush once, all sharing its answer; distinct ones each', async () => {
    const { server, group, coalesced } = readServer();
    server.holdNextCall();
    const first = group.call({ tenant: 't', n: 1 });
    await flushMicrotasks();
    const rest = [
      { tenant: 't', n: 2 },
      { tenant: 't', n: 2 },
      { tenant: 'u', n: 2 },
      { tenant: 't', n: 3 },
      { tenant: 't', n: 2 },
    ].map((r) => group.call(r));
    server.release();
    const answers = await Promise.all([first, ...rest]);
    expect(server.calls.map(({ kind, items }) => ({ kind, items }))).toEqual([
      { kind: 'single', items: [1] },
      // Tenant u's identical query is not tenant t's: it is asked for on its own.
      { kind: 'batch', items: [2, 2, 3] },
    ]);
    expect(answers.map((a) => a.n)).toEqual([10, 20, 20, 20, 30, 20]);
    // The same answer object for the coalesced items of tenant t; u's is its own.
    expect(answers[1]).toBe(answers[2]);
    expect(answers[1]).toBe(answers[5]);
    expect(answers[3]).not.toBe(answers[1]);
    expect(coalesced).toEqual([2]);
  });

  it('goes as the single call of the first item when a flush holds one distinct item', async () => {
    const { server, group } = readServer();
    server.holdNextCall();
    const first = runWithContext({ requestId: 'req_a' }, () => group.call({ tenant: 't', n: 1 }));
    await flushMicrotasks();
    const rest = ['req_b', 'req_c'].map((requestId) =>
      runWithContext({ requestId }, () => group.call({ tenant: 't', n: 4 })),
    );
    server.release();
    await expect(Promise.all([first, ...rest])).resolves.toEqual([{ n: 10 }, { n: 40 }, { n: 40 }]);
    expect(server.calls).toEqual([
      { kind: 'single', items: [1], requestId: 'req_a' },
      { kind: 'single', items: [4], requestId: 'req_b' },
    ]);
  });

  it('fails every coalesced item with the error of their one read', async () => {
    const { server, group } = readServer();
    server.holdNextCall();
    const first = group.call({ tenant: 't', n: 1 });
    await flushMicrotasks();
    const rest = [-2, -2, 5].map((n) => group.call({ tenant: 't', n }));
    server.release();
    const settled = await Promise.allSettled([first, ...rest]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.n : (s.reason as DomainError).code))).toEqual([
      10,
      'not_found',
      'not_found',
      50,
    ]);
    expect(server.calls[1].items).toEqual([-2, 5]);
  });

  it('never answers an item from a read sent before it was submitted (read-your-writes)', async () => {
    // The store: what a read sent now would see. A write completes between the two submissions.
    let stored = 1;
    const sent: number[] = [];
    const releases: Array<() => void> = [];
    const group = groupedCall({
      single: async (r: Read) => {
        const seen = stored;
        sent.push(r.n);
        await new Promise<void>((resolve) => releases.push(resolve));
        return { n: seen };
      },
      batch: async () => ({ outcomes: [] }),
      value: (a: { n: number }) => a.n,
      coalesce: key,
    });
    const before = group.call({ tenant: 't', n: 7 });
    await flushMicrotasks();
    stored = 2; // the write completes, then an identical read is submitted
    const after = group.call({ tenant: 't', n: 7 });
    await flushMicrotasks();
    // The first read is in flight: the second is not attached to it but waits for a call of its own.
    expect(sent).toEqual([7]);
    releases.shift()!();
    await expect(before).resolves.toBe(1);
    await flushMicrotasks();
    expect(sent).toEqual([7, 7]);
    releases.shift()!();
    await expect(after).resolves.toBe(2);
  });

  it('coalesces the items of many() too', async () => {
    const { server, group } = readServer();
    const answers = await group.many([
      { tenant: 't', n: 1 },
      { tenant: 't', n: 1 },
      { tenant: 'u', n: 1 },
    ]);
    expect(server.calls.map(({ kind, items }) => ({ kind, items }))).toEqual([{ kind: 'batch', items: [1, 1] }]);
    expect(answers).toEqual([{ n: 10 }, { n: 10 }, { n: 10 }]);
  });
});

describe('groupedRequests and answerEach', () => {
  it('carries each request id in its item, and the server runs each item under it', async () => {
    const seen: Array<[number | undefined, string | undefined]> = [];
    const handle = async (n: number | undefined) => {
      seen.push([n, currentRequestId()]);
      return answer(n ?? 0);
    };
    const serve = (items: Array<RequestItem<number>>) =>
      answerEach(items, 'done', handle, { logger, method: 'Test/Batch' });
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const call = groupedRequests({
      single: async (n: number) => {
        await held;
        return handle(n);
      },
      batch: async (items) => ({ outcomes: await serve(items) }),
    });
    const first = asRequest(1, call);
    await flushMicrotasks();
    const rest = [2, 0, 3].map((n) => asRequest(n, call));
    release!();
    const settled = await Promise.allSettled([first, ...rest]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as DomainError).details))).toEqual([
      10,
      20,
      [{ field: 'n', message: 'must not be 0' }],
      30,
    ]);
    // The batch call ran in the context of the call that opened the group; its items each in their own.
    expect(seen).toEqual([
      [1, 'req_1'],
      [2, 'req_2'],
      [0, 'req_0'],
      [3, 'req_3'],
    ]);
  });

  it('refuses more items than one call may carry, whole', async () => {
    const items = Array.from({ length: 257 }, (_, n) => ({ request: n, requestId: '', traceparent: '' }));
    await expect(answerEach(items, 'done', async (n) => n, { logger, method: 'Test/Batch' })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });
});
