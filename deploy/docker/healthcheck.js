// @ts-check
'use strict';
/**
 * Container health check for compose (Kubernetes uses its own gRPC and HTTP probes):
 *   node /app/healthcheck.js grpc <port>          grpc.health.v1.Health/Check for the whole server
 *   node /app/healthcheck.js http <port> <path>   2xx from an HTTP endpoint
 * Exits 0 when healthy. Uses only @grpc/grpc-js, which every service image already ships.
 */
const [mode, port, urlPath = '/healthz'] = process.argv.slice(2);
const TIMEOUT_MS = 3000;

function done(ok, why) {
  if (!ok) process.stderr.write(`unhealthy: ${why}\n`);
  process.exit(ok ? 0 : 1);
}

if (mode === 'http') {
  fetch(`http://127.0.0.1:${port}${urlPath}`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
    .then((res) => done(res.ok, `HTTP ${res.status}`))
    .catch((error) => done(false, error.message));
} else if (mode === 'grpc') {
  const grpc = require('@grpc/grpc-js');
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  // An empty HealthCheckRequest asks about the server as a whole; the reply's field 1 is the
  // status enum, SERVING = 1 (wire bytes 0x08 0x01).
  client.makeUnaryRequest(
    '/grpc.health.v1.Health/Check',
    () => Buffer.alloc(0),
    (buffer) => buffer,
    {},
    { deadline: Date.now() + TIMEOUT_MS },
    (error, reply) => {
      client.close();
      if (error || !reply) return done(false, error ? error.message : 'no reply');
      done(reply.length >= 2 && reply[0] === 0x08 && reply[1] === 0x01, `status bytes ${reply.toString('hex')}`);
    },
  );
} else {
  done(false, 'usage: healthcheck.js grpc <port> | http <port> [path]');
}
