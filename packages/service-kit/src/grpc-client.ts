import { ChannelCredentials } from '@grpc/grpc-js';
import { createChannel, createClientFactory, type Channel, type Client, type CompatServiceDefinition } from 'nice-grpc';
import { ClientError, Metadata, Status, type CallOptions, type ClientMiddlewareCall } from 'nice-grpc-common';
import { deadlineMiddleware } from 'nice-grpc-client-middleware-deadline';
import {
  BadRequest,
  ErrorInfo,
  RetryInfo,
  RichClientError,
  errorDetailsClientMiddleware,
} from 'nice-grpc-error-details';
import { REQUEST_ID_METADATA_KEY, currentRequestId } from './context.js';
import { DomainError, errorCodeForGrpcStatus, isErrorCode, type FieldIssue } from './errors.js';
import { tracingClientMiddleware } from './grpc-tracing.js';
import type { Metrics } from './metrics.js';
import { tracingEnabled } from './tracing.js';

export type { Channel, Client } from 'nice-grpc';

export interface GrpcClientOptions {
  /** Deadline of every call in milliseconds unless the call passes its own. */
  deadlineMs: number;
  metrics?: Metrics;
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
  async function* propagate<Req, Res>(call: ClientMiddlewareCall<Req, Res>, callOptions: CallOptions) {
    const metadata = Metadata(callOptions.metadata);
    const requestId = currentRequestId();
    if (requestId && !metadata.has(REQUEST_ID_METADATA_KEY)) metadata.set(REQUEST_ID_METADATA_KEY, requestId);
    const end = options.metrics?.grpcClientDuration.startTimer({ method: call.method.path });
    let code = Status.OK;
    try {
      return yield* call.next(call.request, { ...callOptions, metadata });
    } catch (error) {
      code = error instanceof ClientError ? error.code : Status.UNKNOWN;
      throw fromClientError(error);
    } finally {
      end?.({ code: Status[code] });
    }
  }

  // Client middleware added later wraps what was added before: the rich error details must be
  // decoded (innermost) before `propagate` converts the error, and `propagate` must also see the
  // DEADLINE_EXCEEDED the deadline middleware raises (else it reaches the gateway as a 500).
  // Outermost, and only when tracing is on: the span covers the whole call, retries of nothing.
  const factory = createClientFactory().use(errorDetailsClientMiddleware).use(deadlineMiddleware).use(propagate);
  return (tracingEnabled() ? factory.use(tracingClientMiddleware) : factory).create(definition, channel, {
    '*': { deadline: options.deadlineMs },
  } as never);
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
  // 503 that names no internal service or method, with a hint when to retry (DESIGN.md section 3).
  if (error.code === Status.DEADLINE_EXCEEDED && reason === undefined) {
    return new DomainError('service_unavailable', 'The service did not answer in time; please retry', [], 2);
  }
  const code = reason && isErrorCode(reason) ? reason : errorCodeForGrpcStatus(error.code);
  if (code === 'service_unavailable') {
    return new DomainError(
      code,
      reason === code ? error.details : 'The service is temporarily unavailable; please retry',
      [],
      retryAfter ?? UNAVAILABLE_RETRY_AFTER_S,
    );
  }
  return new DomainError(code, error.details, details, retryAfter);
}

/** The DomainError of one failed item of a batch call (the other side's `toCallError`). */
export function fromCallError(error: { code: string; message: string; retryAfterSeconds: number }): DomainError {
  const code = isErrorCode(error.code) ? error.code : 'internal_error';
  return new DomainError(code, error.message, [], error.retryAfterSeconds > 0 ? error.retryAfterSeconds : undefined);
}
