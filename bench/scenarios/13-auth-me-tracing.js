// @ts-check
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const { countSpans } = require('../otlp-spans');
const { loggedInUser } = require('./10-auth-me-jwt');

/**
 * A local OTLP/HTTP sink: accepts span exports, counts the spans, discards them. It stands in for
 * a collector, so "tracing on" pays for recording, batching, serializing and sending every span.
 */
async function startSink() {
  const sink = { spans: 0, requests: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      sink.requests += 1;
      sink.spans += countSpans(Buffer.concat(chunks), req.headers['content-type']);
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  sink.url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  sink.close = () => new Promise((resolve) => server.close(resolve));
  return sink;
}

/** CPU seconds a process has used so far (user + system), from /proc (Linux). */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * One load, with the CPU the gateway and identity spent per request: on a shared, oversubscribed
 * machine req/s follow the CPU share the processes get, CPU per request does not.
 */
async function measureWithCpu(ctx, target) {
  const pids = ['gateway', 'identity'].map((name) => ctx.platform.service(name).pid);
  const before = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const figures = await ctx.measure(target);
  const used = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - before;
  return { ...figures, cpuMs: figures.requests > 0 ? (used * 1000) / figures.requests : 0 };
}

function change(on, off) {
  const pct = off > 0 ? ((on - off) / off) * 100 : 0;
  return `${Math.abs(pct).toFixed(1)}% ${pct >= 0 ? 'more' : 'less'}`;
}

/** Restarts the processes an authenticated read goes through with `env` added. */
async function restart(ctx, env) {
  for (const name of ['identity', 'gateway']) {
    const service = ctx.platform.service(name);
    service.setEnv(env);
    await service.stop();
    await service.start();
  }
}

/** Until the restarted gateway answers the read again (and its access feed is live), plus a settle pause. */
async function warmUp(_ctx, target) {
  const deadline = Date.now() + 30_000;
  let ok = 0;
  while (ok < 50) {
    if (Date.now() > deadline) throw new Error('the restarted gateway did not answer the read');
    const res = await fetch(target.url, { headers: target.headers }).catch(() => undefined);
    ok = res?.status === 200 ? ok + 1 : 0;
    if (!res || res.status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, 3_000));
}

/**
 * GET /api/v1/auth/me with a JWT, with tracing off, then on (gateway and identity restarted with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at the sink), then off again, in the same run. With tracing
 * on, each request records a gateway server span, a gRPC client span and identity's server span.
 */
module.exports = {
  id: 'auth-me-tracing',
  title: 'GET /api/v1/auth/me with a JWT, tracing off / on / off',
  baseline: 'koa-baseline',
  target: 'tracing on costs < 10% of the req/s with it off (same run); off costs ~0',
  async setup(ctx) {
    return { user: await loggedInUser(ctx), sink: await startSink() };
  },
  async run(ctx, state) {
    const target = {
      url: `${ctx.url}/api/v1/auth/me`,
      headers: { authorization: `Bearer ${state.user.accessToken}` },
    };
    await warmUp(ctx, target);
    const off = await measureWithCpu(ctx, target);
    await restart(ctx, { OTEL_EXPORTER_OTLP_ENDPOINT: state.sink.url });
    await warmUp(ctx, target);
    // The warm-up's spans leave within the exporter's delay (5 s): not counted as the load's.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const before = state.sink.spans;
    const on = await measureWithCpu(ctx, target);
    // The last batch leaves within the exporter's delay (5 s): wait for it before counting.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const spans = state.sink.spans - before;
    await restart(ctx, { OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    await warmUp(ctx, target);
    const offAgain = await measureWithCpu(ctx, target);
    const rpsOff = (off.rps + offAgain.rps) / 2;
    const cpuOff = (off.cpuMs + offAgain.cpuMs) / 2;
    const perRequest = on.requests > 0 ? (spans / on.requests).toFixed(2) : '0';
    const cpu = (figures) => `gateway + identity CPU ${figures.cpuMs.toFixed(2)} ms per request`;
    return {
      rows: [
        { label: 'auth/me, tracing off', ...off, note: cpu(off) },
        {
          label: 'auth/me, tracing on (OTLP to a local sink)',
          ...on,
          note:
            `${cpu(on)} (${change(on.cpuMs, cpuOff)} than off); req/s ${change(on.rps, rpsOff)} than off ` +
            `(mean of the two off runs); ${spans} spans exported (${perRequest} per request)`,
        },
        { label: 'auth/me, tracing off again', ...offAgain, note: cpu(offAgain) },
      ],
    };
  },
  async teardown(_ctx, state) {
    await state.sink?.close();
  },
};
