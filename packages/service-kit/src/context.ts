import { AsyncLocalStorage } from 'node:async_hooks';

/** What travels with one request through gateway, gRPC metadata, logs and Kafka headers. */
export interface RequestContext {
  requestId: string;
  /** The tenant the request acts for, once the gateway has authenticated its caller. */
  tenantId?: string;
}

/**
 * One AsyncLocalStorage for the request context and, when tracing is on, the active
 * OpenTelemetry context (tracing-context.ts): each store is a cost every promise pays (the
 * runtime copies each store to every promise it creates), so the tracing context rides in this
 * one instead of a second. Setting either keeps the other, as two stores would.
 */
interface Store {
  request: RequestContext | undefined;
  trace: unknown;
}

const storage = new AsyncLocalStorage<Store>();
/** Whether a trace context was ever set: until then (tracing off) there is none to keep. */
let traced = false;

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run({ request: context, trace: traced ? storage.getStore()?.trace : undefined }, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore()?.request;
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.request?.requestId;
}

/** Names the tenant the current request acts for (no effect outside a request context). */
export function setCurrentTenant(tenantId: string): void {
  const request = storage.getStore()?.request;
  if (request) request.tenantId = tenantId;
}

/**
 * Runs `fn` in the current request and trace context, counted for `tenantId` (in-flight-limit.ts's
 * shares): a call a service makes for a tenant's work outside any request of the gateway's (a
 * workflow's agent node), or, with undefined, work done at once for several requests, perhaps of
 * several tenants (a batch call grouping them), that none of them should be counted for.
 */
export function runForTenant<T>(tenantId: string | undefined, fn: () => T): T {
  const store = storage.getStore();
  if (store?.request?.tenantId === tenantId) return fn();
  const requestId = store?.request?.requestId ?? '';
  const request = tenantId === undefined ? { requestId } : { requestId, tenantId };
  return storage.run({ request, trace: store?.trace }, fn);
}

/** Everything the current async context carries (request and trace context), to run work in it later. */
export type CapturedContext = Store | undefined;

export function captureContext(): CapturedContext {
  return storage.getStore();
}

/** Runs `fn` in a context taken by `captureContext` (none: outside any request). */
export function runInCapturedContext<T>(captured: CapturedContext, fn: () => T): T {
  return storage.run(captured ?? { request: undefined, trace: undefined }, fn);
}

/** The active trace context, for tracing-context.ts only (undefined outside any). */
export function activeTraceContext(): unknown {
  return storage.getStore()?.trace;
}

/** Runs `fn` with `trace` as the active trace context, the request context unchanged; for tracing-context.ts. */
export function runWithTraceContext<T>(trace: unknown, fn: () => T): T {
  traced = true;
  return storage.run({ request: storage.getStore()?.request, trace }, fn);
}

/**
 * Runs `fn` with a new request context and `trace` as its active trace context, both set in one
 * switch (a traced request's start: `runWithContext` then `runWithTraceContext` made two); for
 * tracing.ts.
 */
export function runWithRequestAndTrace<T>(context: RequestContext, trace: unknown, fn: () => T): T {
  traced = true;
  return storage.run({ request: context, trace }, fn);
}

export const REQUEST_ID_METADATA_KEY = 'x-request-id';
