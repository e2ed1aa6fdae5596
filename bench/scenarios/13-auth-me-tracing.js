// @ts-check
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const { countSpans } = require('../otlp-spans');
const { loggedInUser } = require('./10-auth-me-jwt');

/**
 * A local OTLP/HTTP sink: accepts span exports and counts their spans. It stands in for a
 * collector, so "tracing on" pays for recording, batching, serializing and sending every span.
 * It counts them when asked, after the load, not as they come: it shares its thread with the load
 * generator, and walking 5,000-10,000 spans a second there slowed the load of the traced arm alone
 * (a collector runs elsewhere; what it costs is not the gateway's).
 */
async function startSink() {
  /** @type {Array<{ body: Buffer[]; type: string | undefined }>} */
  const received = [];
  let counted = 0;
  const sink = {
    requests: 0,
    url: '',
    /** Spans received so far; counted here, after the load, not while it runs (see above). */
    get spans() {
      for (const one of received.splice(0)) counted += countSpans(Buffer.concat(one.body), one.type);
      return counted;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
  const server = http.createServer((req, res) => {
    const body = [];
    req.on('data', (chunk) => body.push(chunk));
    req.on('end', () => {
      sink.requests += 1;
      received.push({ body, type: req.headers['content-type'] });
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  sink.url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return sink;
}

/** CPU seconds of a /proc stat file: user and system (fields 14 and 15, in clock ticks of 1/100 s). */
function statSeconds(file) {
  const stat = fs.readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/**
 * CPU seconds a process has used so far, all its threads, their user time alone, and its main
 * thread alone (Linux). The rest of the main thread's is V8's garbage-collection helpers and
 * libuv's pool: what a CPU profile of the main thread does not show. System time is mostly the
 * sockets' (each response's write wakes the load generator), which moves with the machine's
 * load more than with anything the process runs; what tracing adds is user time.
 */
function cpuSeconds(pid) {
  const all = statSeconds(`/proc/${pid}/stat`);
  const main = statSeconds(`/proc/${pid}/task/${pid}/stat`);
  return { all: all.user + all.system, user: all.user, main: main.user + main.system };
}

/** A gateway's young generation: collections so far and the bytes it holds (prom-client's default metrics). */
async function youngGeneration(metricsPort) {
  const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  const count = /^nodejs_gc_duration_seconds_count\{[^}]*kind="minor"[^}]*\} (\d+)/m.exec(text);
  const size = /^nodejs_heap_space_size_total_bytes\{[^}]*space="new"[^}]*\} (\d+)/m.exec(text);
  return { scavenges: count ? Number(count[1]) : 0, bytes: size ? Number(size[1]) : 0 };
}

function change(on, off) {
  const pct = off > 0 ? ((on - off) / off) * 100 : 0;
  return `${Math.abs(pct).toFixed(1)}% ${pct >= 0 ? 'more' : 'less'}`;
}

/** Until a gateway answers the read 50 times in a row and hears identity's revocations (else it caches no credential). */
async function warmUp(target, metricsPort) {
  const deadline = Date.now() + 60_000;
  let ok = 0;
  while (ok < 50) {
    if (Date.now() > deadline) throw new Error(`${target.url} did not answer the read`);
    const res = await fetch(target.url, { headers: target.headers }).catch(() => undefined);
    ok = res?.status === 200 ? ok + 1 : 0;
    if (!res || res.status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  while (Date.now() < deadline) {
    const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    if (/^gateway_access_feed_live(\{[^}]*\})? 1$/m.test(text)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Each slice's length. Short, and many of them: the load is off and on in turn every 2 s, so both
 * arms see the machine alike (its speed here changes within seconds), and neither idles long
 * enough between its slices (2-4 s) for V8 to shrink its heap and make its next slice pay for
 * growing it again. Six slices of 5-10 s did: an A/A run (both arms untraced) measured the second
 * replica 7-20% dearer in five runs of five (docs/performance.md, "Tracing").
 */
const SLICE_SECONDS = 2;

/**
 * The slices' order, each an arm and one of its two replicas: pairs off/on then on/off (ABBA), so
 * a drift in the machine's speed over the run weighs on both arms alike, the replicas of each arm
 * taking turns. At least 120 s an arm (60 slices), more with a BENCH_DURATION over 80: slices
 * of one arm differ by 20-40% on this machine, one slice pair's comparison anywhere from -37% to
 * +34%, and with 15 slices an arm the same code read from -5% to +12% over eight runs
 * (docs/performance.md, "Tracing"). Four times the slices halve that spread.
 * @returns {Array<['off' | 'on', number]>}
 */
function sliceOrder(/** @type {number} */ duration) {
  /** @type {Array<['off' | 'on', number]>} */
  const order = [];
  const pairs = Math.max(60, Math.round((3 * duration) / 2 / SLICE_SECONDS));
  for (let i = 0; i < pairs; i++) {
    const n = i % 2;
    if (Math.floor(i / 2) % 2 === 0) order.push(['off', n], ['on', n]);
    else order.push(['on', n], ['off', n]);
  }
  return order;
}

/**
 * The traced arm's share of new traces (OTEL_TRACES_SAMPLER_ARG of `parentbased_traceidratio`):
 * BENCH_TRACING_SAMPLER_ARG, default 0.1, the production overlay's (deploy/k8s/overlays/prod);
 * 1 records every request, as compose and `npm start` do.
 */
const SAMPLER_ARG = process.env.BENCH_TRACING_SAMPLER_ARG ?? '0.1';

/**
 * GET /api/v1/auth/me with a JWT through gateways side by side, replicas started the same way,
 * two without tracing and two with OTEL_EXPORTER_OTLP_ENDPOINT pointing at the sink, all in
 * front of the same identity. The load alternates between them in slices of 2 s (`sliceOrder`), so
 * both see the same machine: the CPU left to a process here changes within seconds, and a traced
 * run minutes after the untraced one measured that more than tracing. Each arm's figures add its
 * slices; the CPU is the gateway process's per request. The read
 * itself does not reach identity (the gateway caches the profile under the revocation feed), so
 * a sampled request records one span, the gateway's server span, batched and exported; the
 * others pay for the sampling decision and a span that records nothing.
 */
module.exports = {
  id: 'auth-me-tracing',
  title: `GET /api/v1/auth/me with a JWT, a gateway with tracing off and one with it on (sampling ${SAMPLER_ARG}), alternating`,
  baseline: 'koa-baseline',
  target: 'tracing on at the production sampling (0.1) costs < 10% of the req/s with it off (same run)',
  async setup(ctx) {
    const sink = await startSink();
    const platform = ctx.platform.service('gateway');
    // BENCH_TRACING_CONTROL=1: the second gateway without tracing too (an A/A run), to see how far
    // apart two identical gateways measure on this machine.
    const control = process.env.BENCH_TRACING_CONTROL === '1';
    const replica = (/** @type {'off' | 'on'} */ arm, /** @type {number} */ n) =>
      platform.replica(
        `${platform.logFile}.${arm === 'on' ? 'traced' : 'plain'}-${n}`,
        arm === 'on' && !control
          ? {
              OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
              OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
              OTEL_TRACES_SAMPLER_ARG: SAMPLER_ARG,
            }
          : {},
      );
    // Two replicas an arm, started in two pairs: traced then plain, plain then traced. The first
    // of two replicas started together measured 3-5% dearer for the rest of the run in A/A runs,
    // whichever arm it was (docs/performance.md, "Tracing"); each arm now has one of each.
    const replicas = { off: [replica('off', 0), replica('off', 1)], on: [replica('on', 0), replica('on', 1)] };
    /** @type {Record<'off' | 'on', import('@agentplatform/testing').ReadyLine[]>} */
    const ready = { off: [], on: [] };
    [ready.on[0], ready.off[0]] = await Promise.all([replicas.on[0].start(), replicas.off[0].start()]);
    [ready.off[1], ready.on[1]] = await Promise.all([replicas.off[1].start(), replicas.on[1].start()]);
    return { user: await loggedInUser(ctx), sink, replicas, ready };
  },
  async run(ctx, state) {
    const headers = { authorization: `Bearer ${state.user.accessToken}` };
    /** @type {Record<'off' | 'on', Array<{ pid: number; url: string; metrics: number }>>} */
    const arms = { off: [], on: [] };
    for (const name of /** @type {const} */ (['off', 'on']))
      for (const [n, process] of state.replicas[name].entries())
        arms[name].push({
          pid: process.pid,
          url: `http://127.0.0.1:${state.ready[name][n].http_port}/api/v1/auth/me`,
          metrics: state.ready[name][n].metrics_port,
        });
    const all = [...arms.off, ...arms.on];
    for (const arm of all) await warmUp({ url: arm.url, headers }, arm.metrics);
    // One uncounted slice each under the full load: the first seconds of a load are the slowest
    // (sockets opened, code optimized for it), and the arms must start the count alike.
    for (const arm of all) {
      const { requests } = await ctx.measure({ url: arm.url, headers, duration: SLICE_SECONDS });
      ctx.log(`${arm.url}, warm-up: ${requests} requests`);
    }
    // The warm-up's spans leave within the exporter's delay (5 s): not counted as the load's.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const before = state.sink.spans;
    // The machine's load while the slices run: on a shared machine the figures mean little without it.
    const loadBefore = os.loadavg()[0];
    const emptyTotal = () => ({
      requests: 0,
      seconds: 0,
      cpu: 0,
      user: 0,
      main: 0,
      identity: 0,
      /** @type {number[]} */ p50: [],
      /** @type {number[]} */ p99: [],
      errors: 0,
    });
    const totals = { off: emptyTotal(), on: emptyTotal() };
    // Identity behind both arms (untraced, shared): its CPU in each arm's slices, per request.
    const identityPid = ctx.platform.service('identity').pid;
    for (const [name, n] of sliceOrder(ctx.duration)) {
      const arm = arms[name][n];
      const cpu = cpuSeconds(arm.pid);
      const identityCpu = cpuSeconds(identityPid).all;
      const young = await youngGeneration(arm.metrics);
      const figures = await ctx.measure({ url: arm.url, headers, duration: SLICE_SECONDS });
      const after = cpuSeconds(arm.pid);
      const youngAfter = await youngGeneration(arm.metrics);
      const total = totals[name];
      total.identity += cpuSeconds(identityPid).all - identityCpu;
      total.cpu += after.all - cpu.all;
      total.user += after.user - cpu.user;
      total.main += after.main - cpu.main;
      total.requests += figures.requests;
      total.seconds += SLICE_SECONDS;
      total.p50.push(figures.p50);
      total.p99.push(figures.p99);
      total.errors += figures.errors;
      ctx.log(
        `${name} ${n}: ${Math.round(figures.requests / SLICE_SECONDS)} req/s, ` +
          `${(((after.all - cpu.all) * 1000) / Math.max(1, figures.requests)).toFixed(4)} ms CPU per request, ` +
          `${youngAfter.scavenges - young.scavenges} scavenges, young generation ` +
          `${(young.bytes / 2 ** 20).toFixed(1)} -> ${(youngAfter.bytes / 2 ** 20).toFixed(1)} MB`,
      );
    }
    const loadAfter = os.loadavg()[0];
    // The last batch leaves within the exporter's delay (5 s): wait for it before counting.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const spans = state.sink.spans - before;
    const row = (/** @type {'off' | 'on'} */ name) => {
      const t = totals[name];
      const sorted = (/** @type {number[]} */ list) => [...list].sort((a, b) => a - b);
      return {
        rps: Math.round(t.requests / t.seconds),
        // The median slice's p50 and the worst slice's p99.
        p50: sorted(t.p50)[Math.floor(t.p50.length / 2)],
        p99: sorted(t.p99)[t.p99.length - 1],
        requests: t.requests,
        errors: t.errors,
        cpuMs: t.requests > 0 ? (t.cpu * 1000) / t.requests : 0,
        mainMs: t.requests > 0 ? (t.main * 1000) / t.requests : 0,
        userMs: t.requests > 0 ? (t.user * 1000) / t.requests : 0,
        identityMs: t.requests > 0 ? (t.identity * 1000) / t.requests : 0,
      };
    };
    const off = row('off');
    const on = row('on');
    const perRequest = on.requests > 0 ? (spans / on.requests).toFixed(2) : '0';
    const cpu = (figures) =>
      `gateway CPU ${figures.cpuMs.toFixed(3)} ms per request (user ${figures.userMs.toFixed(3)}, main thread ${figures.mainMs.toFixed(3)}; identity ${figures.identityMs.toFixed(3)})`;
    return {
      rows: [
        { label: `auth/me, tracing off (${totals.off.p50.length} slices)`, ...off, note: cpu(off) },
        {
          label: `auth/me, tracing on, sampling ${SAMPLER_ARG}, OTLP to a local sink (${totals.on.p50.length} slices)`,
          ...on,
          note:
            `${cpu(on)} (${change(on.cpuMs, off.cpuMs)} than off, user ${change(on.userMs, off.userMs)}, main thread ${change(on.mainMs, off.mainMs)}); req/s ${change(on.rps, off.rps)} than off; ` +
            `${spans} spans exported (${perRequest} per request); load average ${loadBefore.toFixed(1)} to ${loadAfter.toFixed(1)}`,
        },
      ],
    };
  },
  async teardown(_ctx, state) {
    for (const process of [...(state.replicas?.off ?? []), ...(state.replicas?.on ?? [])]) await process.stop();
    await state.sink?.close();
  },
};
