// @ts-check
'use strict';
/**
 * `node bench/tracing-span-cost.js` (after a build): the CPU one traced authenticated read adds,
 * measured in one process with the real SDK and exporter. Each "request" records what a traced
 * `GET /api/v1/auth/me` records across the gateway and identity (the request span, the gRPC client
 * span whose traceparent is injected, identity's server span continued from it), and every span
 * is exported over OTLP/HTTP to a sink (another process) that discards it. The load is paced so the
 * batch processor's queue does not overflow: dropped spans cost nothing and would flatter the
 * figure, so the output shows spans exported next to spans recorded.
 * Not included: the extra async-generator layer the gRPC span middleware adds on each side.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const kit = require(
  path.join(process.env.KIT || path.join(__dirname, '..', 'packages', 'service-kit', 'dist'), 'index.js'),
);

const REQUESTS = Number(process.env.REQUESTS || 20_000);
/**
 * SPANS=read (default): the three spans of a read that reaches identity. SPANS=gateway: the one
 * span of the `auth-me-tracing` scenario, the gateway's request span as its middleware records it
 * (ROOT=sdk: with the SDK's general span instead of the lean root span). SPANS=none: the same
 * loop without tracing (the untraced gateway's request context), the figure to subtract.
 * KIT=<dir>: service-kit's dist from another build (an A/B of two builds in one tree).
 */
const SPANS = process.env.SPANS || 'read';
const ROOT = process.env.ROOT || 'lean';
const grpc = {
  'rpc.system': 'grpc',
  'rpc.service': 'agentplatform.identity.v1.IdentityService',
  'rpc.method': 'GetMe',
};
const METHOD = '/agentplatform.identity.v1.IdentityService/GetMe';

const REQUEST_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** What services/gateway's request middleware does without tracing (request-context.ts). */
async function oneUntracedRequest() {
  await kit.runWithContext({ requestId: REQUEST_ID }, async () => undefined);
}

/**
 * What services/gateway's request middleware does with tracing on (request-tracing.ts): the
 * request context and the root span's context set together (before 2026-11-25, and with
 * ROOT=sdk, the request context first, then the span's context in a second switch).
 */
function oneGatewayRequest() {
  const span =
    ROOT === 'sdk'
      ? kit.startSpan('GET', { kind: kit.SpanKind.SERVER })
      : kit.startRootSpan('GET', kit.SpanKind.SERVER);
  const request = { requestId: REQUEST_ID };
  const handler = async () => undefined;
  const end = () => {
    // The gateway's way since 2026-11-28: the request's values given at once.
    if (kit.endHttpServerSpan)
      return kit.endHttpServerSpan(span, 'GET', '/api/v1/auth/me', REQUEST_ID, 200, '/api/v1/auth/me');
    span.setAttribute('http.request.method', 'GET');
    span.setAttribute('url.path', '/api/v1/auth/me');
    span.setAttribute('agentplatform.request.id', REQUEST_ID);
    span.setAttribute('http.response.status_code', 200);
    span.updateName('GET /api/v1/auth/me');
    span.setAttribute('http.route', '/api/v1/auth/me');
    span.end();
  };
  if (ROOT !== 'sdk' && kit.runRequestInRootSpan) return kit.runRequestInRootSpan(request, span, handler).then(end);
  // The two middlewares of before: requestContext's async function, then requestTracing's switch.
  return (async () => {
    await kit.runWithContext(request, () => kit.runInTraceContext(kit.contextWithSpan(span), handler).then(end));
  })();
}

function oneReadRequest() {
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

/**
 * The sink runs in a process of its own, so the CPU measured here is only the traced side's:
 * recording, batching, serializing and sending (a collector's parsing is not the platform's cost).
 * It counts the spans it receives and answers `GET /count` with the total.
 */
const SINK = `
const http = require('node:http');
const { countSpans } = require(${JSON.stringify(path.join(__dirname, 'otlp-spans.js'))});
let spans = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') return res.end(String(spans));
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    spans += countSpans(Buffer.concat(chunks), req.headers['content-type']);
    res.writeHead(200).end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)).resume();
`;

async function startSink() {
  const child = spawn(process.execPath, ['-e', SINK], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (data) => resolve(Number(String(data).trim())));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    exported: async () => Number(await (await fetch(`${url}/count`)).text()),
    stop: () => child.stdin.end(),
  };
}

/** CPU microseconds of this process's main thread (Linux; the rest is V8's GC helpers and libuv's pool). */
function mainThreadUs() {
  const stat = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const oneRequest = SPANS === 'gateway' ? oneGatewayRequest : SPANS === 'none' ? oneUntracedRequest : oneReadRequest;

/**
 * Bytes the heap grows by per request: batches of 100 requests, the median of those no garbage
 * collection ran in (the heap grew); what a request leaves for the collector.
 */
async function bytesPerRequest() {
  const grown = [];
  for (let batch = 0; batch < 40; batch++) {
    const before = v8.getHeapStatistics().used_heap_size;
    for (let i = 0; i < 100; i++) await oneRequest();
    const after = v8.getHeapStatistics().used_heap_size;
    if (after > before) grown.push((after - before) / 100);
  }
  grown.sort((a, b) => a - b);
  return grown.length > 0 ? Math.round(grown[Math.floor(grown.length / 2)]) : undefined;
}

async function main() {
  const sink = await startSink();
  const endpoint = sink.url;
  const stop =
    SPANS === 'none'
      ? async () => undefined
      : await kit.startTracing('span-cost', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
  for (let i = 0; i < 2_000; i++) await oneRequest();
  // The warm-up's spans leave with the exporter's next scheduled batch (5 s): not counted.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const before = await sink.exported();
  const cpu = process.cpuUsage();
  const main = mainThreadUs();
  for (let i = 0; i < REQUESTS; i++) {
    await oneRequest();
    if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const used = process.cpuUsage(cpu);
  const mainUsed = mainThreadUs() - main;
  const bytes = await bytesPerRequest();
  await stop();
  const perRequest = (used.user + used.system) / REQUESTS;
  console.log(
    JSON.stringify({
      requests: REQUESTS,
      spans: SPANS,
      root: SPANS === 'none' ? undefined : ROOT,
      // With the 4,000 requests of the heap measurement.
      spans_recorded: (REQUESTS + 4_000) * (SPANS === 'read' ? 3 : SPANS === 'gateway' ? 1 : 0),
      spans_exported: (await sink.exported()) - before,
      cpu_us_per_request: Math.round(perRequest * 10) / 10,
      main_thread_us_per_request: Math.round((mainUsed / REQUESTS) * 10) / 10,
      heap_bytes_per_request: bytes,
    }),
  );
  sink.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
