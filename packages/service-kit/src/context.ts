import { AsyncLocalStorage } from 'node:async_hooks';

/** What travels with one request through gateway, gRPC metadata, logs and Kafka headers. */
export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export const REQUEST_ID_METADATA_KEY = 'x-request-id';
