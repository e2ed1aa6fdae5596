import { randomUUID } from 'node:crypto';
import { createServer, type CallContext, type Server, type ServerMiddlewareCall } from 'nice-grpc';
import { ServerError, Status } from 'nice-grpc-common';
import { BadRequest, ErrorInfo, RetryInfo, RichServerError, type ErrorDetails } from 'nice-grpc-error-details';
import { HealthDefinition, HealthServiceImpl, HealthState } from 'nice-grpc-server-health';
import { REQUEST_ID_METADATA_KEY, runWithContext } from './context.js';
import { DomainError, ERROR_CODES, type FieldIssue } from './errors.js';
import { DETAILS_TRAILER, encodeStatusDetails } from './grpc-error-details.js';
import { tracingServerMiddleware } from './grpc-tracing.js';
import { newId } from './ids.js';
import { meteredInFlightLimits } from './in-flight-limit.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { tracingEnabled } from './tracing.js';

/** The `domain` of every ErrorInfo this platform sends; its `reason` is the SPEC error code. */
export const ERROR_DOMAIN = 'agentplatform';

/** An error nobody expected: logged with an id the caller is given instead of a stack. */
function unexpected(error: unknown, logger: Logger, method: string): { errorId: string; message: string } {
  const errorId = newId('err');
  logger.error({ err: error, error_id: errorId, method }, 'unexpected error');
  return { errorId, message: `Internal error (${errorId})` };
}

/** The MongoDB driver's errors for a database it cannot reach (by name: no driver import here). */
const DATABASE_UNREACHABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
]);

/** A lost database connection is the service's outage (503, retry), not an internal error. */
function unreachableAsUnavailable(error: unknown, logger: Logger, method: string): unknown {
  if (!(error instanceof Error && DATABASE_UNREACHABLE.has(error.name))) return error;
  logger.warn({ err: error, method }, 'database unreachable');
  return new DomainError('service_unavailable', 'The service is temporarily unavailable; please retry', [], 2);
}

/** Maps a thrown error to the gRPC error a caller receives; unknown errors get an id, not a stack. */
export function toServerError(error: unknown, logger: Logger, method: string): ServerError {
  if (error instanceof ServerError) return error;
  error = unreachableAsUnavailable(error, logger, method);
  if (error instanceof DomainError) {
    const extra: ErrorDetails[] = [ErrorInfo.fromPartial({ reason: error.code, domain: ERROR_DOMAIN })];
    if (error.details.length > 0) {
      extra.push(
        BadRequest.fromPartial({
          fieldViolations: error.details.map((d) => ({ field: d.field, description: d.message })),
        }),
      );
    }
    if (error.retryAfter !== undefined) {
      extra.push(RetryInfo.fromPartial({ retryDelay: { seconds: error.retryAfter, nanos: 0 } }));
    }
    return new RichServerError(ERROR_CODES[error.code].grpc, error.message, extra);
  }
  const { errorId, message } = unexpected(error, logger, method);
  return new RichServerError(Status.INTERNAL, message, [
    ErrorInfo.fromPartial({ reason: 'internal_error', domain: ERROR_DOMAIN, metadata: { error_id: errorId } }),
  ]);
}

/** The `agentplatform.common.v1.CallError` message: one item's failure in a batch call. */
export interface CallErrorMessage {
  code: string;
  message: string;
  retryAfterSeconds: number;
  details: FieldIssue[];
}

/**
 * One item's failure in a batch call (a `CallError` message): the same code, message, retry
 * delay and field issues a failed single call would carry; unknown errors are logged and get an id.
 */
export function toCallError(failure: unknown, logger: Logger, method: string): CallErrorMessage {
  const error = unreachableAsUnavailable(failure, logger, method);
  if (error instanceof DomainError)
    return {
      code: error.code,
      message: error.message,
      retryAfterSeconds: error.retryAfter ?? 0,
      details: error.details,
    };
  return {
    code: 'internal_error',
    message: unexpected(error, logger, method).message,
    retryAfterSeconds: 0,
    details: [],
  };
}

export interface GrpcServerOptions {
  logger: Logger;
  metrics: Metrics;
  /**
   * The most calls the server has in flight (`GRPC_MAX_IN_FLIGHT`); past it a call is answered
   * UNAVAILABLE (503, Retry-After) before its handler runs. Unset: no bound. Health checks are
   * never counted nor refused: a busy service is still alive and ready.
   */
  maxInFlight?: number;
}

const HEALTH_PATH = '/grpc.health.v1.Health/';

/**
 * A nice-grpc server with the platform's middleware: request id from metadata into the async
 * context (so every log line carries it), metrics, and domain-error mapping with rich details.
 * The standard grpc.health.v1 service is registered; `health` drives what it answers.
 */
export function createGrpcServer({ logger, metrics, maxInFlight }: GrpcServerOptions): {
  server: Server;
  health: HealthState;
} {
  const limit = meteredInFlightLimits(metrics, 'grpc_server')('server', maxInFlight ?? 0);
  /**
   * One middleware for the platform's concerns (each nested async-generator layer costs promise
   * churn on every call): the request id from metadata into the async context, the duration
   * metric, and domain errors mapped to gRPC errors whose rich details travel in the
   * `grpc-status-details-bin` trailer (what nice-grpc-error-details' server middleware does).
   * First of all, the in-flight limit: a call past it is refused before anything reads it.
   */
  async function* platform<Req, Res>(call: ServerMiddlewareCall<Req, Res>, ctx: CallContext) {
    const requestId = ctx.metadata.get(REQUEST_ID_METADATA_KEY) ?? randomUUID();
    const end = metrics.grpcServerDuration.startTimer({ method: call.method.path });
    const counted = !call.method.path.startsWith(HEALTH_PATH);
    let entered = false;
    let code: Status = Status.OK;
    try {
      if (counted) {
        limit.enter('service');
        entered = true;
      }
      const context = { requestId };
      // A unary handler answers with its return value: it runs to the end inside one context, with
      // no generator layer between it and this one.
      if (!call.responseStream) return await runWithContext(context, () => onlyResult(call.next(call.request, ctx)));
      return yield* runWithContextGenerator(context, () => call.next(call.request, ctx));
    } catch (error) {
      const mapped = ctx.signal.aborted ? error : toServerError(error, logger, call.method.path);
      code = mapped instanceof ServerError ? mapped.code : Status.UNKNOWN;
      if (code === Status.INTERNAL) metrics.errors.inc({ kind: 'grpc' });
      if (mapped instanceof RichServerError) {
        ctx.trailer.set(DETAILS_TRAILER, encodeStatusDetails(mapped.code, mapped.details, mapped.extra));
      }
      throw mapped;
    } finally {
      if (entered) limit.leave();
      end({ code: Status[code] });
    }
  }

  const base = createServer({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    'grpc.keepalive_permit_without_calls': 1,
    // Channelz keeps per-call statistics for a debugging service nothing here serves.
    'grpc.enable_channelz': 0,
  });
  // The span layer only when tracing is on: off, a call pays nothing for it.
  const server = (tracingEnabled() ? base.use(tracingServerMiddleware) : base).use(platform);
  const health = HealthState();
  server.add(HealthDefinition, HealthServiceImpl(health));
  return { server, health };
}

/**
 * The return value of a unary call's handler chain, run to its end from here: called inside a
 * context, its body starts (and, following its promises, resumes) in that context.
 */
async function onlyResult<T, R>(generator: AsyncGenerator<T, R | void, undefined>): Promise<R | void> {
  const step = await generator.next();
  if (!step.done) throw new Error('A unary call yielded a message instead of returning one');
  return step.value;
}

/**
 * Runs an async generator inside a request context. AsyncLocalStorage follows promises, but a
 * generator's body resumes from its consumer's context, so each step is entered explicitly.
 */
async function* runWithContextGenerator<T, R>(
  context: { requestId: string },
  start: () => AsyncGenerator<T, R | void, undefined>,
): AsyncGenerator<T, R | void, undefined> {
  const generator = runWithContext(context, start);
  for (;;) {
    const step = await runWithContext(context, () => generator.next());
    if (step.done) return step.value;
    yield step.value;
  }
}
