import pino, { type Logger } from 'pino';
import { currentRequestId } from './context.js';

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

/** JSON logger; every line carries the service name and, inside a request, its request id. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: [...REDACTED, ...REDACTED.map((k) => `*.${k}`)], censor: '[redacted]' },
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
  });
}
