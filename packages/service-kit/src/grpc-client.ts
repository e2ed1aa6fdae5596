import { ChannelCredentials } from '@grpc/grpc-js';
import { createChannel, createClientFactory, type Channel, type Client, type CompatServiceDefinition } from 'nice-grpc';
import { ClientError, Metadata, Status, type CallOptions, type ClientMiddlewareCall } from 'nice-grpc-common';
import { BadRequest, ErrorInfo, RetryInfo, RichClientError, type ErrorDetails } from 'nice-grpc-error-details';
import { REQUEST_ID_METADATA_KEY, currentContext } from './context.js';
import { AnswerLostError, DomainError, errorCodeForGrpcStatus, isErrorCode, type FieldIssue } from './errors.js';
import { DETAILS_TRAILER, decodeStatusDetails } from './grpc-error-details.js';
import { tracingClientMiddleware } from './grpc-tracing.js';
import type { InFlightLimit } from './in-flight-limit.js';
import type { Metrics } from './metrics.js';
import { tracingEnabled } from './tracing.js';

export type { Channel, Client } from 'nice-grpc';

export interface GrpcClientOptions {
  /** Deadline of every call in milliseconds unless the call passes its own. */
  deadlineMs: number;
  metrics?: Metrics;
  /**
   * Bounds the calls in flight to the other side (shared by every client of one backend): past
   * it a call fails at once with the shed error (503, Retry-After), never sent.
   */
  inFlight?: { limit: InFlightLimit; name: string };
}

/** One channel per address; gRPC multiplexes all calls over it and reconnects by itself. */
export function openChannel(address: string): Channel {
  return createChannel(address, ChannelCredentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    // Reconnect quickly after a backend restarts instead of backing off for up to two minutes.
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 2_000,
    // Channelz keeps per-call statistics for a debugging service nothing here serves.
    'grpc.enable_channelz': 0,
  });
}

/**
 * A typed client whose every call has a deadline, carries the current request id in its metadata
 * and throws `DomainError` for the platform's own errors (so they can travel on unchanged).
 */
export function createGrpcClient<D extends CompatServiceDefinition>(
  definition: D,
  channel: Channel,
  options: GrpcClientOptions,
): Client<D, { deadline?: Date | number }> {
  const factory = createClientFactory().use(platformCall(options.metrics, options.inFlight));
  // Outermost, and only when tracing is on: the span covers the whole call.
  return (tracingEnabled() ? factory.use(tracingClientMiddleware) : factory).create(definition, channel, {
    '*': { deadline: options.deadlineMs },
  });
}

/**
 * The platform's client concerns in one middleware (each nested async-generator layer costs
 * promise churn on every call; these were three: nice-grpc's deadline and error-details
 * middleware and our own), in this order:
 * - the in-flight limit, when there is one: a call past it, or past its tenant's share of it (the
 *   request context's tenant), is refused before it is sent;
 * - the current request id into the call's metadata;
 * - the deadline: the call is aborted when it passes, and fails with DEADLINE_EXCEEDED (what
 *   nice-grpc-client-middleware-deadline does, whose `deadline` option this keeps);
 * - the rich error details of the trailer decoded (what errorDetailsClientMiddleware does), then
 *   the error converted into the DomainError the remote side threw (`fromClientError`);
 * - the call's duration metric, by method and status code.
 */
function platformCall(metrics: Metrics | undefined, inFlight: GrpcClientOptions['inFlight']) {
  return async function* platform<Req, Res>(
    call: ClientMiddlewareCall<Req, Res, { deadline?: Date | number }>,
    callOptions: CallOptions & { deadline?: Date | number },
  ) {
    // Before anything is set up: a refused call leaves nothing behind (no timer, no listener).
    const request = currentContext();
    const tenant = request?.tenantId;
    inFlight?.limit.enter(inFlight.name, tenant);
    const { deadline, signal: callerSignal, onTrailer, ...rest } = callOptions;
    const metadata = Metadata(rest.metadata);
    const requestId = request?.requestId;
    if (requestId && !metadata.has(REQUEST_ID_METADATA_KEY)) metadata.set(REQUEST_ID_METADATA_KEY, requestId);

    let signal = callerSignal;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let abort: (() => void) | undefined;
    if (deadline != null && !callerSignal?.aborted) {
      const controller = new AbortController();
      abort = () => controller.abort();
      callerSignal?.addEventListener('abort', abort);
      const offset = deadline instanceof Date ? deadline.getTime() - Date.now() : deadline;
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, offset);
      signal = controller.signal;
    }

    let details: ErrorDetails[] | undefined;
    const end = metrics?.grpcClientDuration.startTimer({ method: call.method.path });
    let code = Status.OK;
    try {
      const inner = call.next(call.request, {
        ...rest,
        metadata,
        signal,
        onTrailer(trailer) {
          const encoded = trailer.get(DETAILS_TRAILER);
          if (encoded != null) details = decodeStatusDetails(encoded);
          onTrailer?.(trailer);
        },
      });
      if (call.responseStream || call.requestStream) return yield* inner;
      return await unaryResult(inner);
    } catch (error) {
      let failure = error;
      if (timedOut) failure = new ClientError(call.method.path, Status.DEADLINE_EXCEEDED, 'Deadline exceeded');
      else if (details && error instanceof ClientError) {
        failure = new RichClientError(error.path, error.code, error.details, details);
      }
      code = failure instanceof ClientError ? failure.code : Status.UNKNOWN;
      throw fromClientError(failure);
    } finally {
      inFlight?.limit.leave(tenant);
      clearTimeout(timer);
      if (abort) callerSignal?.removeEventListener('abort', abort);
      end?.({ code: Status[code] });
    }
  };
}

/**
 * The answer of a unary call, started without a stack trace: grpc-js captures `new Error()` at
 * the start of every unary call (makeUnaryRequest, synchronously inside the first `next()`) to
 * give a failed call's error the caller's stack, about 2% of the gateway's CPU. nice-grpc turns
 * that error into a ClientError of its own, and the platform into a DomainError, so the stack
 * was never seen; the limit is back before anything else runs.
 */
async function unaryResult<T, R>(generator: AsyncGenerator<T, R | void, undefined>): Promise<R | void> {
  const limit = Error.stackTraceLimit;
  let first: Promise<IteratorResult<T, R | void>>;
  Error.stackTraceLimit = 0;
  try {
    first = generator.next();
  } finally {
    Error.stackTraceLimit = limit;
  }
  const step = await first;
  if (!step.done) throw new Error('A unary call yielded a message instead of returning one');
  return step.value;
}

/** About the channel's longest reconnect backoff: a restarted backend is reachable again by then. */
const UNAVAILABLE_RETRY_AFTER_S = 2;

/** Converts a gRPC client error into the DomainError the remote side threw, when it is one. */
export function fromClientError(error: unknown): unknown {
  if (!(error instanceof ClientError)) return error;
  const extra = error instanceof RichClientError ? error.extra : [];
  let reason: string | undefined;
  let retryAfter: number | undefined;
  const details: FieldIssue[] = [];
  for (const detail of extra) {
    if (detail.$type === ErrorInfo.$type) reason = detail.reason;
    if (detail.$type === BadRequest.$type) {
      for (const v of detail.fieldViolations) details.push({ field: v.field, message: v.description });
    }
    if (detail.$type === RetryInfo.$type) retryAfter = detail.retryDelay?.seconds;
  }
  // A deadline or an unreachable backend is the platform's state, not the caller's mistake: a
  // 503 that names no internal service or method, with a hint when to retry (docs/design.md section 3).
  if (error.code === Status.DEADLINE_EXCEEDED && reason === undefined) {
    return new AnswerLostError('The service did not answer in time; please retry', 2);
  }
  const code = reason && isErrorCode(reason) ? reason : errorCodeForGrpcStatus(error.code);
  if (code === 'service_unavailable') {
    // Refused by the service itself (it says why): not performed. Otherwise the transport failed,
    // perhaps after the call was sent.
    if (reason === code) return new DomainError(code, error.details, [], retryAfter ?? UNAVAILABLE_RETRY_AFTER_S);
    return new AnswerLostError(
      'The service is temporarily unavailable; please retry',
      retryAfter ?? UNAVAILABLE_RETRY_AFTER_S,
    );
  }
  return new DomainError(code, error.details, details, retryAfter);
}

/** The DomainError of one failed item of a batch call (the other side's `toCallError`). */
export function fromCallError(error: {
  code: string;
  message: string;
  retryAfterSeconds: number;
  details?: FieldIssue[];
}): DomainError {
  const code = isErrorCode(error.code) ? error.code : 'internal_error';
  return new DomainError(
    code,
    error.message,
    error.details ?? [],
    error.retryAfterSeconds > 0 ? error.retryAfterSeconds : undefined,
  );
}
