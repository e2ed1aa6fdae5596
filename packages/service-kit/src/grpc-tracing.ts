import { ROOT_CONTEXT, propagation, type Context, type Span } from '@opentelemetry/api';
import type { CallContext, ServerMiddlewareCall } from 'nice-grpc';
import {
  ClientError,
  Metadata,
  ServerError,
  Status,
  type CallOptions,
  type ClientMiddlewareCall,
  type MethodDescriptor,
} from 'nice-grpc-common';
import { DomainError, ERROR_CODES } from './errors.js';
import { SpanKind, contextWithSpan, failSpan, runInTraceContext, startSpan } from './tracing.js';

/** gRPC metadata read and written by the W3C propagator (text keys only: `traceparent`, `tracestate`). */
const metadataGetter = {
  get: (carrier: Metadata, key: string) => carrier.get(key) as string | undefined,
  keys: (carrier: Metadata) => [...carrier].map(([key]) => key),
};
const metadataSetter = { set: (carrier: Metadata, key: string, value: string) => carrier.set(key, value) };

function rpcAttributes(method: MethodDescriptor) {
  const [, service = '', name = ''] = method.path.split('/');
  return { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': name };
}

/** Codes that mean the platform failed, not the caller (OpenTelemetry's gRPC conventions). */
const FAULTS = new Set([
  Status.UNKNOWN,
  Status.DEADLINE_EXCEEDED,
  Status.UNIMPLEMENTED,
  Status.INTERNAL,
  Status.UNAVAILABLE,
  Status.DATA_LOSS,
]);

function codeOf(error: unknown): Status {
  if (error instanceof ServerError || error instanceof ClientError) return error.code;
  // The client's own middleware has turned the platform's errors into DomainErrors by now.
  if (error instanceof DomainError) return ERROR_CODES[error.code].grpc;
  return Status.UNKNOWN;
}

function endWithCode(span: Span, code: Status, error?: unknown): void {
  span.setAttribute('rpc.grpc.status_code', code);
  if (error !== undefined && FAULTS.has(code)) failSpan(span, error);
  span.end();
}

/**
 * A server span per call, continuing the caller's trace from the `traceparent` metadata, active
 * while the handler runs. Only installed when tracing is on (grpc-server.ts).
 */
export async function* tracingServerMiddleware<Req, Res>(call: ServerMiddlewareCall<Req, Res>, ctx: CallContext) {
  const parent = propagation.extract(ROOT_CONTEXT, ctx.metadata, metadataGetter);
  const span = startSpan(call.method.path, { kind: SpanKind.SERVER, parent, attributes: rpcAttributes(call.method) })!;
  try {
    const result = yield* inContext(contextWithSpan(span, parent), () => call.next(call.request, ctx));
    endWithCode(span, Status.OK);
    return result;
  } catch (error) {
    endWithCode(span, codeOf(error), error);
    throw error;
  }
}

/**
 * A client span per call, sent on as `traceparent` metadata. Only installed when tracing is on
 * (grpc-client.ts).
 */
export async function* tracingClientMiddleware<Req, Res>(call: ClientMiddlewareCall<Req, Res>, options: CallOptions) {
  const span = startSpan(call.method.path, { kind: SpanKind.CLIENT, attributes: rpcAttributes(call.method) })!;
  const metadata = Metadata(options.metadata);
  propagation.inject(contextWithSpan(span), metadata, metadataSetter);
  try {
    const result = yield* call.next(call.request, { ...options, metadata });
    endWithCode(span, Status.OK);
    return result;
  } catch (error) {
    endWithCode(span, codeOf(error), error);
    throw error;
  }
}

/**
 * Runs an async generator with `ctx` active: a generator's body resumes in its consumer's
 * context, so each step is entered explicitly (as grpc-server.ts does for the request id),
 * through the platform's context manager directly when it is the global one (tracing.ts).
 */
async function* inContext<T, R>(
  ctx: Context,
  start: () => AsyncGenerator<T, R | void, undefined>,
): AsyncGenerator<T, R | void, undefined> {
  const generator = runInTraceContext(ctx, start);
  for (;;) {
    const step = await runInTraceContext(ctx, () => generator.next());
    if (step.done) return step.value;
    yield step.value;
  }
}
