import pino, { type Logger } from 'pino';
import { SonicBoom } from 'sonic-boom';
import { currentRequestId } from './context.js';
import { currentTraceId } from './tracing.js';

export type { Logger } from 'pino';

/** Keys whose values are never written to a log, wherever they appear in an object. */
const REDACTED = [
  'password',
  'token',
  'access_token',
  'refresh_token',
  'authorization',
  'secret',
  'signing_secret',
  'key',
  'api_key',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
];

let stdoutAbandoned = false;

/** Called when the process that read stdout has gone: pending and further log lines may be dropped. */
export function abandonStdout(): void {
  stdoutAbandoned = true;
}

/**
 * JSON logger; every line carries the service name and, inside a request, its request id.
 *
 * Lines go to stdout asynchronously: a synchronous write retries in a blocking loop while stdout
 * cannot take more (a stalled or vanished log reader), which freezes the whole process, shutdown
 * included. Asynchronous writes keep the event loop free; `flushLogs` drains them before exit.
 */
export function createLogger(service: string, level = 'info'): Logger {
  // sonic-boom 5 directly rather than pino.destination (pino bundles 4.x, whose synchronous flush
  // at exit retries a write that failed with EPIPE forever: a service whose supervisor died
  // could never exit).
  const destination = new SonicBoom({
    fd: 1,
    sync: false,
    minLength: 0,
    // Once the supervisor reading stdout is gone, a full pipe never drains: drop instead of waiting.
    retryEAGAIN: () => !stdoutAbandoned,
    // And whatever the reason, a write that stdout refuses for ~5 s (retries 100 ms apart) is
    // dropped rather than retried forever.
    maxWriteRetries: 50,
  } as ConstructorParameters<typeof SonicBoom>[0]); // maxWriteRetries is missing from its typings
  // A closed stdout (the supervisor is gone) must not crash the service: the lines are lost.
  destination.on('error', () => undefined);
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED, ...REDACTED.map((k) => `*.${k}`)], censor: '[redacted]' },
      mixin() {
        const requestId = currentRequestId();
        const traceId = currentTraceId();
        if (traceId) return requestId ? { request_id: requestId, trace_id: traceId } : { trace_id: traceId };
        return requestId ? { request_id: requestId } : {};
      },
    },
    destination,
  );
}

/** Writes out buffered log lines, waiting at most `timeoutMs` (stdout may be gone). */
export function flushLogs(logger: Logger, timeoutMs = 1_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
