// @ts-check
'use strict';
/**
 * `node bench/tracing-span-cost.js` (after a build): the CPU one traced authenticated read adds,
 * measured in one process with the real SDK and exporter. Each "request" records what a traced
 * `GET /api/v1/auth/me` records across the gateway and identity (the request span, the gRPC client
 * span whose traceparent is injected, identity's server span continued from it), and every span
 * is exported as OTLP JSON to a local sink that discards it. The load is paced so the batch
 * processor's queue (2,048 spans) does not overflow: dropped spans cost nothing and would flatter
 * the figure, so the output shows spans exported next to spans recorded.
 * Not included: the extra async-generator layer the gRPC span middleware adds on each side.
 */
const http = require('node:http');
const path = require('node:path');
const kit = require(path.join(__dirname, '..', 'packages', 'service-kit', 'dist', 'index.js'));

const REQUESTS = Number(process.env.REQUESTS || 20_000);
const grpc = {
  'rpc.system': 'grpc',
  'rpc.service': 'agentplatform.identity.v1.IdentityService',
  'rpc.method': 'GetMe',
};
const METHOD = '/agentplatform.identity.v1.IdentityService/GetMe';

function oneRequest() {
  const attributes = { 'http.request.method': 'GET', 'url.path': '/api/v1/auth/me', 'agentplatform.request.id': 'r' };
  return kit.traced('GET', { kind: kit.SpanKind.SERVER, attributes }, async (root) => {
    root.updateName('GET /api/v1/auth/me');
    root.setAttribute('http.route', '/api/v1/auth/me');
    root.setAttribute('http.response.status_code', 200);
    const client = kit.startSpan(METHOD, { kind: kit.SpanKind.CLIENT, attributes: grpc });
    const traceparent = kit.currentTraceparent(kit.contextWithSpan(client));
    const parent = kit.contextFromTraceparent(traceparent);
    const server = kit.startSpan(METHOD, { kind: kit.SpanKind.SERVER, parent, attributes: grpc });
    await kit.runInTraceContext(kit.contextWithSpan(server), async () => undefined);
    server.setAttribute('rpc.grpc.status_code', 0);
    server.end();
    client.setAttribute('rpc.grpc.status_code', 0);
    client.end();
  });
}

async function main() {
  let exported = 0;
  const sink = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('latin1');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      exported += body.split('"spanId"').length - 1;
      res.end('{}');
    });
  });
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', () => resolve(undefined)));
  const endpoint = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (sink.address()).port}`;
  const stop = await kit.startTracing('span-cost', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
  for (let i = 0; i < 2_000; i++) await oneRequest();
  // The warm-up's spans leave with the exporter's next scheduled batch (5 s): not counted.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const before = exported;
  const cpu = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    await oneRequest();
    if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await stop();
  const used = process.cpuUsage(cpu);
  const perRequest = (used.user + used.system) / REQUESTS;
  console.log(
    JSON.stringify({
      requests: REQUESTS,
      spans_recorded: REQUESTS * 3,
      spans_exported: exported - before,
      cpu_us_per_request: Math.round(perRequest * 10) / 10,
    }),
  );
  sink.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
