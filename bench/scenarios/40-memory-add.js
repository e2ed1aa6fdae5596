// @ts-check
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const { loggedInUser } = require('./10-auth-me-jwt.js');

/**
 * The load's HTTP client: node:http over kept-alive connections. The client shares the two cores
 * with the platform, and global fetch cost it about a millisecond of CPU per request here.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request; resolves with the status once the whole answer is read. */
function send(url, { method, headers, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/*
 * Memory scenarios (issue 4). Shared helpers live here and are reused by 41-43.
 * Latency figures come from a fixed number of requests at a small, fixed concurrency (a latency
 * measurement, not a saturation test); p95 is computed from every request's own timing.
 */

const VOCABULARY = (
  'refund policy return customer order shipping invoice password account security data backup region plan ' +
  'limit request minute mobile app dark mode version employee laptop call phone support enterprise canada ' +
  'business day month email first payment card bank transfer discount coupon warehouse delivery tracking ' +
  'contract renewal upgrade downgrade trial license seat admin role permission report export dashboard ' +
  'integration webhook token key rotation audit log retention privacy consent cookie language timezone'
).split(' ');

/** Deterministic pseudo-random generator, so every run seeds the same texts. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(random, words = 12) {
  return Array.from({ length: words }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(' ');
}

/** Runs `total` requests, `concurrency` at a time; returns req/s and latency percentiles (ms). */
async function latencies({ total, concurrency, request }) {
  const times = [];
  let next = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  async function worker() {
    while (next < total) {
      const i = next++;
      const { url, init } = request(i);
      const t0 = process.hrtime.bigint();
      const status = await send(url, init);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (status < 200 || status >= 300) errors++;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  times.sort((a, b) => a - b);
  const pct = (p) => Math.round(times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] * 10) / 10;
  return {
    rps: Math.round(total / seconds),
    p50: pct(50),
    p95: pct(95),
    p99: pct(99),
    requests: total,
    errors,
    seconds,
  };
}

/**
 * CPU seconds a process has used so far (user + system), from /proc (Linux); with `mainThread`,
 * its main thread's only (without worker threads such as agent-memory's embedding model).
 */
function cpuSeconds(pid, mainThread = false) {
  const stat = fs.readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Operations the database has served so far (serverStatus opcounters: inserts, queries, updates,
 * deletes, getmores, commands), or undefined where the server does not count them.
 */
async function databaseOps(ctx) {
  const { MongoClient } = require('mongodb');
  const client = await MongoClient.connect(ctx.platform.mongoUri).catch(() => undefined);
  if (!client) return undefined;
  try {
    const status = await client.db('admin').command({ serverStatus: 1 });
    const counters = status.opcounters;
    if (!counters) return undefined;
    return Object.values(counters).reduce((sum, n) => sum + Number(n), 0);
  } catch {
    return undefined;
  } finally {
    await client.close();
  }
}

/** The pid of the local MongoDB stand-in (the JVM listening on the URI's port), or undefined. */
function standInPid(mongoUri) {
  const { execSync } = require('node:child_process');
  try {
    const line = execSync(`ss -ltnpH "sport = :${new URL(mongoUri).port}"`).toString();
    const pid = /pid=(\d+)/.exec(line)?.[1];
    return pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('java') ? Number(pid) : undefined;
  } catch {
    return undefined;
  }
}

/** The agent's items that have no vector yet, read from agent-memory's database. */
async function itemsWithoutVector(ctx, agentId) {
  const { MongoClient } = require('mongodb');
  const client = await MongoClient.connect(ctx.platform.mongoUri);
  try {
    const memories = client.db(ctx.platform.database('agent-memory')).collection('memories');
    return await memories.countDocuments({ agent_id: agentId, 'embedding.vector': { $exists: false } });
  } finally {
    await client.close();
  }
}

/** The agent's memory_version, read from agent-memory's database. */
async function memoryVersion(ctx, agentId) {
  const { MongoClient } = require('mongodb');
  const client = await MongoClient.connect(ctx.platform.mongoUri);
  try {
    const agent = await client.db(ctx.platform.database('agent-memory')).collection('agents').findOne({ _id: agentId });
    return agent?.memory_version ?? 0;
  } finally {
    await client.close();
  }
}

function post(ctx, token, path, body) {
  return {
    url: `${ctx.url}/api/v1${path}`,
    init: {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
  };
}

/** A user, an agent, and (optionally) `count` seeded memory items through the gateway. */
async function agentWithMemories(ctx, count, label) {
  const { accessToken } = await loggedInUser(ctx);
  const client = ctx.api(ctx.url, accessToken);
  const agent = await client.post('/api/v1/agents', {
    name: `bench ${label}`,
    type: 'research',
    memory_types: ['semantic', 'episodic'],
  });
  if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${agent.text}`);
  const random = rng(count + 17);
  if (count > 0) {
    const started = Date.now();
    const seeded = await latencies({
      total: count,
      concurrency: 32,
      request: (i) =>
        post(ctx, accessToken, '/memory', {
          agent_id: agent.body.id,
          content: `${sentence(random)} item ${i}`,
          metadata: { n: i % 10, category: VOCABULARY[i % 20] },
        }),
    });
    if (seeded.errors) throw new Error(`seeding ${count} memories: ${seeded.errors} errors`);
    ctx.log(`seeded ${count} memories in ${Date.now() - started} ms`);
  }
  return { accessToken, agentId: agent.body.id, random };
}

/** POST /memory/search latency over an agent's seeded items. */
function searchScenario(count) {
  return {
    id: `memory-search-${count / 1000}k`,
    title: `POST /api/v1/memory/search, ${count.toLocaleString('en')} items per agent (concurrency 4)`,
    target: `p95 <= ${count <= 1000 ? 20 : 60} ms`,
    setup: (ctx) => agentWithMemories(ctx, count, `search ${count}`),
    async run(ctx, state) {
      const queries = Array.from({ length: 50 }, () => sentence(state.random, 4));
      const request = (i) =>
        post(ctx, state.accessToken, '/memory/search', {
          agent_id: state.agentId,
          query: queries[i % queries.length],
          top_k: 10,
        });
      // Warm-up, not measured: the first search loads the agent's index into the replica's cache,
      // and the same load for a moment lets the JIT compile the search path and the platform
      // finish the seeding's tail (its events), so the figures are the steady state.
      await latencies({ total: 400, concurrency: 4, request });
      const figures = await latencies({ total: 2_000, concurrency: 4, request });
      const filtered = await latencies({
        total: 500,
        concurrency: 4,
        request: (i) =>
          post(ctx, state.accessToken, '/memory/search', {
            agent_id: state.agentId,
            query: queries[i % queries.length],
            top_k: 10,
            filters: { n: { gte: 5 } },
            min_score: 0.1,
          }),
      });
      return {
        rows: [
          { label: `search, ${count.toLocaleString('en')} items`, ...figures },
          { label: `search with filters and min_score, ${count.toLocaleString('en')} items`, ...filtered },
        ],
      };
    },
  };
}

/**
 * Runs adds through the gateway and measures them: `memories` in requests of `perRequest` (1 for
 * POST /memory, more for POST /memory/batch), `concurrency` at a time. Answers the request figures
 * and a note with memories/s, CPU per memory (gateway, agent-memory, the MongoDB stand-in, this
 * process's load generator), database operations and version bumps per memory, and the time until
 * the last vector is stored: on a shared machine req/s follow the CPU share the processes get,
 * CPU per memory does not.
 *
 * With `warmUp`, that many requests go first, uncounted, at the same concurrency (their indexes
 * follow the measured ones'), and their vectors are stored before the measured adds start: a
 * fresh process runs the add path in V8's (and the stand-in's JVM's) unoptimised code for its
 * first seconds, which is not the steady state a long-running replica serves. The note gives the
 * warm-up's own memories/s too.
 */
async function measuredAdds(ctx, state, { memories, perRequest, concurrency, request, warmUp = 0 }) {
  const os = require('node:os');
  const pids = ['gateway', 'agent-memory'].map((name) => ctx.platform.service(name).pid);
  const standIn = standInPid(ctx.platform.mongoUri);
  const own = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  };
  const cpu = () => [
    ...pids.map((pid) => cpuSeconds(pid)),
    cpuSeconds(pids[1], true),
    standIn ? cpuSeconds(standIn) : 0,
    own(),
  ];
  const total = Math.ceil(memories / perRequest);
  const warmed =
    warmUp > 0 ? await latencies({ total: warmUp, concurrency, request: (i) => request(total + i) }) : undefined;
  if (warmed?.errors) throw new Error(`${warmed.errors} of the ${warmUp} warm-up requests failed`);
  // The model loads in agent-memory's worker after the process is up (seconds of CPU), the warm-up's
  // vectors are being stored, and an earlier scenario's backlog may still drain (chat-local leaves
  // thousands of episodic memories of about 2 KB, a few per second each at the model's 256 word
  // pieces): wait until its threads other than the main one are quiet, so that the figures and the
  // drain are the adds' own.
  const settleStarted = Date.now();
  let settleLogged = settleStarted;
  for (;;) {
    const others = () => cpuSeconds(pids[1]) - cpuSeconds(pids[1], true);
    const before = others();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (others() - before < 0.05) break;
    if (Date.now() - settleStarted > DRAIN_BOUND_MS) {
      ctx.log('the embedding backlog still drains after the drain bound: measuring beside it');
      break;
    }
    if (Date.now() - settleLogged >= DRAIN_LOG_MS) {
      settleLogged = Date.now();
      ctx.log(
        `waiting for the embedding backlog of the warm-up or an earlier scenario (${Math.round((settleLogged - settleStarted) / 1000)} s)`,
      );
    }
  }
  const settledAfter = Math.round((Date.now() - settleStarted) / 1000);
  if (settledAfter > 5) ctx.log(`the embedding backlog drained in ${settledAfter} s before the adds`);
  const cpuBefore = cpu();
  const opsBefore = await databaseOps(ctx);
  const versionBefore = await memoryVersion(ctx, state.agentId);
  const loadBefore = os.loadavg()[0];
  const embeddedBefore = await embeddedTotal(ctx);
  const addsStarted = Date.now();
  const figures = await latencies({ total, concurrency, request });
  const cpuAdds = cpu();
  const cpuMs = cpuAdds.map((s, i) => ((s - cpuBefore[i]) * 1000) / memories);
  const loadAfter = os.loadavg()[0];
  const opsAfter = await databaseOps(ctx);
  const bumps = (await memoryVersion(ctx, state.agentId)) - versionBefore;
  const drain = await drainAfterAdds(ctx, state, { memories, addsStarted, embeddedBefore, cpu, cpuAdds, opsAfter });
  const ops = opsBefore && opsAfter ? ((opsAfter - opsBefore) / memories).toFixed(2) : 'n/a';
  const perSecond = Math.round(memories / figures.seconds);
  const warmNote = warmed
    ? ` after a warm-up of ${warmUp * perRequest} uncounted memories at ${Math.round((warmUp * perRequest) / warmed.seconds)}/s`
    : '';
  const note =
    `${perSecond} memories/s (${perRequest} per request)${warmNote}; CPU per memory during the adds: gateway ` +
    `${cpuMs[0].toFixed(2)} ms, agent-memory ${cpuMs[1].toFixed(2)} ms (its main thread ${cpuMs[2].toFixed(2)} ms, ` +
    `the rest its other threads: the embedding model's worker, V8's and libuv's helpers), MongoDB stand-in ` +
    `${standIn ? `${cpuMs[3].toFixed(2)} ms` : 'n/a'}, load generator ${cpuMs[4].toFixed(2)} ms; all ` +
    `${cpuMs.reduce((sum, ms, i) => (i === 2 ? sum : sum + ms), 0).toFixed(2)} ms; database operations ` +
    `per memory during the adds (all services, embedding backlog included): ${ops}; memory_version bumps per ` +
    `memory (one per group of adds or batch, plus one per stored backlog batch): ${(bumps / memories).toFixed(3)}; ` +
    `${drain.note}; load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}`;
  return { figures, perSecond, note };
}

/** Longest wait for the adds' vectors (BENCH_DRAIN_BOUND_S, default 600 s) before giving up. */
const DRAIN_BOUND_MS = Number(process.env.BENCH_DRAIN_BOUND_S || 600) * 1000;
/** How often the drain is polled (agent-memory's counter; the database every DRAIN_LOG_MS) and logged. */
const DRAIN_POLL_MS = 1_000;
const DRAIN_LOG_MS = 10_000;

/**
 * Vectors agent-memory's backlog has stored so far (its `agent_memory_embedded_total`, all
 * providers), read from its metrics endpoint; undefined when that cannot be read.
 */
async function embeddedTotal(ctx) {
  const port = ctx.platform.service('agent-memory').ready?.metrics_port;
  if (!port) return undefined;
  try {
    const text = await new Promise((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/metrics`, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve(body));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    const lines = String(text)
      .split('\n')
      .filter((line) => line.startsWith('agent_memory_embedded_total'));
    return lines.length > 0 ? lines.reduce((sum, line) => sum + Number(line.split(' ').pop()), 0) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits for the embedding backlog to give every added memory its vector (none may be lost) and
 * measures the drain: memories/s from the first add and from the last add until the last vector
 * is stored, and the CPU per memory embedded after the last add of agent-memory's main thread,
 * its other threads (the model's worker), the stand-in and the gateway, with database operations
 * per memory. It polls agent-memory's count of stored vectors every second (a count of the
 * agent's waiting items is a scan of the collection on the stand-in, whose CPU would be charged to
 * the drain) and counts the waiting items in the database every 10 s, when it logs progress, and
 * at the end; it gives up after DRAIN_BOUND_MS with a line saying how many are still waiting.
 */
async function drainAfterAdds(ctx, state, { memories, addsStarted, embeddedBefore, cpu, cpuAdds, opsAfter }) {
  const loadEnded = Date.now();
  const waitingAtLastAdd = await itemsWithoutVector(ctx, state.agentId);
  let waiting = waitingAtLastAdd;
  let lastCount = Date.now();
  while (waiting > 0 && Date.now() - loadEnded < DRAIN_BOUND_MS) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    const embedded = embeddedBefore === undefined ? undefined : await embeddedTotal(ctx);
    const countNow =
      embedded === undefined || embedded - embeddedBefore >= memories || Date.now() - lastCount >= DRAIN_LOG_MS;
    if (!countNow) continue;
    waiting = await itemsWithoutVector(ctx, state.agentId);
    if (Date.now() - lastCount >= DRAIN_LOG_MS && waiting > 0) {
      const seconds = (Date.now() - loadEnded) / 1000;
      ctx.log(
        `drain: ${memories - waiting} of ${memories} vectors stored, ${waiting} waiting, ${seconds.toFixed(0)} s ` +
          `after the last add (${((waitingAtLastAdd - waiting) / seconds).toFixed(1)} memories/s since then)`,
      );
    }
    if (Date.now() - lastCount >= DRAIN_LOG_MS) lastCount = Date.now();
  }
  const ended = Date.now();
  const cpuEnd = cpu();
  const opsEnd = await databaseOps(ctx);
  const sinceFirst = (ended - addsStarted) / 1000;
  const sinceLast = (ended - loadEnded) / 1000;
  const embeddedAfter = waitingAtLastAdd - waiting;
  const perItem = (i) => ((cpuEnd[i] - cpuAdds[i]) * 1000) / Math.max(1, embeddedAfter);
  const cpuNote =
    `CPU per memory embedded after the last add: agent-memory main thread ${perItem(2).toFixed(2)} ms, its ` +
    `other threads ${(perItem(1) - perItem(2)).toFixed(2)} ms, MongoDB stand-in ${perItem(3).toFixed(2)} ms, ` +
    `gateway ${perItem(0).toFixed(2)} ms (${(1000 / (perItem(1) + perItem(3))).toFixed(0)} memories per CPU second ` +
    `of agent-memory and the stand-in together, the drain's rate per core); database operations per memory ` +
    `embedded after the last add: ` +
    `${opsAfter && opsEnd ? ((opsEnd - opsAfter) / Math.max(1, embeddedAfter)).toFixed(2) : 'n/a'}`;
  if (waiting > 0) {
    const line =
      `drain gave up: ${waiting} of ${memories} memories still without a vector ${sinceLast.toFixed(0)} s after ` +
      `the last add (${(embeddedAfter / sinceLast).toFixed(1)} memories/s since the last add)`;
    ctx.log(line);
    return { note: `${line}; ${cpuNote}` };
  }
  const note =
    `every vector stored ${sinceLast.toFixed(1)} s after the last add: drain ${(memories / sinceFirst).toFixed(1)} ` +
    `memories/s from the first add (${memories} in ${sinceFirst.toFixed(1)} s), ` +
    `${waitingAtLastAdd > 0 ? (waitingAtLastAdd / sinceLast).toFixed(1) : 'n/a'} memories/s from the last add ` +
    `(${waitingAtLastAdd} were waiting then); ${cpuNote}`;
  ctx.log(note);
  return { note };
}

module.exports = {
  id: 'memory-add',
  title: 'POST /api/v1/memory (add with local embedding), concurrency 16',
  VOCABULARY,
  rng,
  sentence,
  latencies,
  post,
  agentWithMemories,
  searchScenario,
  cpuSeconds,
  standInPid,
  databaseOps,
  itemsWithoutVector,
  measuredAdds,
  setup: (ctx) => agentWithMemories(ctx, 0, 'add'),
  async run(ctx, state) {
    const memories = Number(process.env.BENCH_MEMORY_ADDS || 3_000);
    const { figures, note } = await measuredAdds(ctx, state, {
      memories,
      perRequest: 1,
      concurrency: 16,
      // As many uncounted adds first as are measured (one memory per request).
      warmUp: memories,
      request: (i) =>
        post(ctx, state.accessToken, '/memory', {
          agent_id: state.agentId,
          content: `${sentence(state.random)} added ${i}`,
          metadata: { n: i % 10 },
        }),
    });
    ctx.log(note);
    return { rows: [{ label: 'memory add', ...figures, note }] };
  },
};
