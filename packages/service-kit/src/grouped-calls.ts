import { randomUUID } from 'node:crypto';
import {
  captureContext,
  currentRequestId,
  runForTenant,
  runInCapturedContext,
  runWithContext,
  type CapturedContext,
} from './context.js';
import { DomainError, ValidationError } from './errors.js';
import { fromCallError } from './grpc-client.js';
import { toCallError, type CallErrorMessage } from './grpc-server.js';
import { GroupCommit } from './group-commit.js';
import type { Logger } from './logger.js';
import { contextFromTraceparent, currentTraceparent, runInTraceContext } from './tracing.js';

/** One item's answer in a batch call's reply: `{ $case: <value's name>, value }` or `{ $case: 'error', value: CallError }`. */
export interface ItemOutcome {
  outcome?: { $case: string; value: unknown };
}

/** Items one batch call may carry at most (the servers refuse more as a whole). */
export const MAX_ITEMS_PER_CALL = 256;

/**
 * During a rolling upgrade a replica may not know a batch call yet: gRPC answers UNIMPLEMENTED
 * ("The server does not implement the method ..."), which arrives as an internal_error.
 */
function olderServer(error: unknown): boolean {
  return (
    error instanceof DomainError && error.code === 'internal_error' && error.message.includes('does not implement')
  );
}

/** One answer per item: its value, or the item's error as its single call would have thrown it. */
function outcomes<A, R>(answers: ItemOutcome[], expected: number, value: (answer: A) => R): Array<R | Error> {
  if (answers.length !== expected) throw new Error(`the batch call answered ${answers.length} of ${expected} items`);
  return answers.map(({ outcome }) =>
    outcome?.$case === 'error'
      ? fromCallError(outcome.value as CallErrorMessage)
      : outcome
        ? value(outcome.value as A)
        : new Error('the batch call answered an item without an outcome'),
  );
}

export interface GroupedCallOptions<T, A, R> {
  /** The single call of one item (what a lone item goes as). */
  single: (item: T) => Promise<A>;
  /** The batch call of several items: one outcome per item, in order. */
  batch: (items: T[]) => Promise<{ outcomes: ItemOutcome[] }>;
  /** An item's answer, from the single call's reply or the value of a batch outcome (the same message). */
  value: (answer: A) => R;
  /**
   * Read coalescing: items of one flush with the same key are sent once and share its answer (the
   * same value object, or the same error). The key must cover everything the answer depends on,
   * the tenant included. Only for reads: see `coalesced`.
   */
  coalesce?: (item: T) => string;
  /** Told how many items of a flush were answered by another item's call (a metric). */
  onCoalesced?: (items: number) => void;
}

/**
 * Sends each distinct key of a flush once and gives every item of that key its answer. Items are
 * coalesced only within one flush: every item of it was submitted before the flush was sent, so
 * the one read made for them starts after each of their requests arrived and sees every write
 * that completed before any of them was sent (read-your-writes holds for each). An item never
 * joins a call already sent.
 */
async function coalesced<T, R>(
  submitted: Array<Submitted<T>>,
  key: (item: T) => string,
  send: (distinct: Array<Submitted<T>>) => Promise<Array<R | Error>>,
  onCoalesced?: (items: number) => void,
): Promise<Array<R | Error>> {
  const slotOf = new Map<string, number>();
  const distinct: Array<Submitted<T>> = [];
  const slots = submitted.map((s) => {
    const k = key(s.item);
    let slot = slotOf.get(k);
    if (slot === undefined) {
      slot = distinct.push(s) - 1;
      slotOf.set(k, slot);
    }
    return slot;
  });
  if (distinct.length === submitted.length) return send(submitted);
  onCoalesced?.(submitted.length - distinct.length);
  const answers = await send(distinct);
  return slots.map((slot) => answers[slot]);
}

export interface GroupedCall<T, R> {
  /**
   * One item, grouped with the calls made while others are in flight: a lone item goes at once
   * as the single call, several as one batch call. Answers this item's value or throws its error.
   */
  call(item: T): Promise<R>;
  /**
   * Several items in one batch call (against a server without it, one single call each), answered
   * per item: its value, or the error its own single call would have thrown. A call that fails as
   * a whole (unreachable, the deadline) throws.
   */
  many(items: T[]): Promise<Array<R | Error>>;
}

interface Submitted<T> {
  item: T;
  /** The submitting request's context (request id, trace): a single call made for it runs in it. */
  context: CapturedContext;
}

/**
 * Concurrent unary calls of one kind grouped into batch calls (service-kit's `GroupCommit`, one
 * queue whatever the items' tenants; the server answers each item on its own). Each caller gets
 * its own item's answer or error. A single call made for an item (a lone item, or each item
 * against a server without the batch call during a rolling upgrade) runs in the context of the
 * request that submitted it; a batch call carries the context of the call that opened the group,
 * so a batch whose server logs per item must carry each item's request id in the item itself.
 */
export function groupedCall<T, A, R>(
  { single, batch, value, coalesce, onCoalesced }: GroupedCallOptions<T, A, R>,
  maxItems = MAX_ITEMS_PER_CALL,
  /** Batch calls in flight at once (GroupCommit's `maxInFlight`). */
  inFlight = 1,
): GroupedCall<T, R> {
  const each = (submitted: Array<Submitted<T>>): Promise<Array<R | Error>> =>
    Promise.all(
      submitted.map(({ item, context }) =>
        runInCapturedContext(context, () => single(item)).then(value, (failed: Error) => failed),
      ),
    );
  const batchOrEach = async (submitted: Array<Submitted<T>>): Promise<Array<R | Error>> => {
    const items = submitted.map((s) => s.item);
    try {
      return outcomes((await batch(items)).outcomes, items.length, value);
    } catch (error) {
      if (!olderServer(error)) throw error;
      return each(submitted);
    }
  };
  // A group's batch call serves several requests, perhaps of several tenants: it is counted for
  // none of them (a gateway's tenant shares, in-flight-limit.ts), only against the bound itself.
  const send = async (submitted: Array<Submitted<T>>): Promise<Array<R | Error>> =>
    submitted.length === 1
      ? [value(await runInCapturedContext(submitted[0].context, () => single(submitted[0].item)))]
      : runForTenant(undefined, () => batchOrEach(submitted));
  const coalescing =
    (to: typeof send) =>
    (submitted: Array<Submitted<T>>): Promise<Array<R | Error>> =>
      coalesce ? coalesced(submitted, coalesce, to, onCoalesced) : to(submitted);
  const flush = coalescing(send);
  const many = coalescing(batchOrEach);
  const group = new GroupCommit<Submitted<T>, R>((_key, submitted) => flush(submitted), maxItems, inFlight);
  return {
    call: (item) => group.submit('', { item, context: captureContext() }),
    many: (items) => many(items.map((item) => ({ item, context: captureContext() }))),
  };
}

/** An item of a batch call whose items are independent requests (AddMemoryMany, ListAgentsMany). */
export interface RequestItem<Req> {
  request: Req;
  /** The request id of the item's own request: the server runs the item under it. */
  requestId: string;
  /** The W3C traceparent of the item's own request when tracing is on; "" otherwise. */
  traceparent: string;
}

/**
 * A unary call grouped as `groupedCall` does, for a batch call whose items each carry their own
 * request id and trace context (taken when the call is made) so that the server logs, traces and
 * stores events of each item under its own request, whichever call opened the group.
 */
export function groupedRequests<Req, Res>(options: {
  single: (request: Req) => Promise<Res>;
  batch: (items: Array<RequestItem<Req>>) => Promise<{ outcomes: ItemOutcome[] }>;
  /**
   * Reads only: identical requests of one flush are sent once (as the first of them, under its
   * request id and trace) and share its answer, which callers must therefore never change. The
   * key must cover the whole request, tenant included (`groupedCall`'s `coalesce`).
   */
  coalesce?: (request: Req) => string;
  onCoalesced?: (requests: number) => void;
  /**
   * Calls in flight at once (2 unless stated). Two for adds: with one, the gateway's grouping and
   * the server's (which groups one agent's adds again into one write) take turns, each idle while
   * the other works. Measured: 845-889 single adds/s with one, 1,053-1,165/s with two
   * (docs/performance.md).
   */
  inFlight?: number;
}): (request: Req) => Promise<Res> {
  const { coalesce, onCoalesced, inFlight = 2 } = options;
  const group = groupedCall(
    {
      single: (item: RequestItem<Req>) => options.single(item.request),
      batch: options.batch,
      value: (answer: Res) => answer,
      coalesce: coalesce && ((item: RequestItem<Req>) => coalesce(item.request)),
      onCoalesced,
    },
    MAX_ITEMS_PER_CALL,
    inFlight,
  );
  return (request) =>
    group.call({ request, requestId: currentRequestId() ?? '', traceparent: currentTraceparent() ?? '' });
}

/**
 * The server side of such a batch call: every item handled concurrently, each in its own request
 * and trace context, each answered on its own (`valueCase` with its value, or `error` with what its
 * single call's failure carries). More than `MAX_ITEMS_PER_CALL` items are refused whole.
 */
export async function answerEach<Req, Res, C extends string>(
  items: Array<{ request: Req | undefined; requestId: string; traceparent: string }>,
  valueCase: C,
  handle: (request: Req | undefined) => Promise<Res>,
  { logger, method }: { logger: Logger; method: string },
): Promise<Array<{ outcome: { $case: C; value: Res } | { $case: 'error'; value: CallErrorMessage } }>> {
  if (items.length > MAX_ITEMS_PER_CALL)
    throw ValidationError.field('items', `must be at most ${MAX_ITEMS_PER_CALL} per call`);
  return Promise.all(
    items.map(({ request, requestId, traceparent }) =>
      runWithContext({ requestId: requestId || randomUUID() }, () =>
        runInTraceContext(contextFromTraceparent(traceparent), () => handle(request)),
      ).then(
        (value) => ({ outcome: { $case: valueCase, value } }),
        (error: unknown) => ({ outcome: { $case: 'error' as const, value: toCallError(error, logger, method) } }),
      ),
    ),
  );
}
