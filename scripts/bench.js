#!/usr/bin/env node
'use strict';
/**
 * `npm run bench [-- <filter>]`: builds, starts the local infrastructure and a whole platform of
 * real processes, runs the scenarios in bench/scenarios/ (all, or those whose id contains the
 * filter) and writes a markdown report to bench/results/<timestamp>.md and bench/results/latest.md.
 *
 * A scenario is a CommonJS module:
 *   id, title            names in the report
 *   baseline (optional)  id of another scenario measured in the same run; the report shows the ratio
 *   setup(ctx) (optional) prepares data; returns a state object
 *   load(ctx, state)     autocannon options (url, method, headers, body, requests...) for an HTTP load
 *   run(ctx, state)      alternatively, a custom measurement returning { rows: [{ label, ...metrics }] }
 *   teardown(ctx, state) (optional)
 * ctx: { url, platform, api, autocannon, measure, duration, connections, log }
 *
 * Environment: BENCH_DURATION (seconds per load, default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_SKIP_BUILD=1 (use the dist folders as they are), AP_SERVICE_NODE_ARGS (Node options for
 * every service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile a scenario).
 * Targets belong in the scenarios' notes, never in tests.
 */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
require('./ensure-install').ensureInstalled();
const autocannon = require('autocannon');

const ROOT = path.resolve(__dirname, '..');
const DURATION = Number(process.env.BENCH_DURATION || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);

function log(...args) {
  console.error('[bench]', ...args);
}

/** Runs one autocannon load and returns the figures the report shows. */
async function measure(options) {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...options });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: non2xx,
  };
}

function loadScenarios(filter) {
  const dir = path.join(ROOT, 'bench', 'scenarios');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => require(path.join(dir, f)))
    .filter((s) => !filter || s.id.includes(filter) || (s.baselineFor ?? []).some((id) => id.includes(filter)));
}

function row(id, title, figures, baseline) {
  const ratio = baseline && baseline.rps ? `${(figures.rps / baseline.rps).toFixed(2)}x of ${baseline.id}` : '';
  return `| ${title} | ${figures.rps ?? ''} | ${figures.p50 ?? ''} | ${figures.p95 ?? ''} | ${figures.p99 ?? ''} | ${figures.errors ?? 0} | ${ratio} | ${figures.note ?? ''} |`;
}

async function main() {
  const filter = process.argv[2];
  if (process.env.BENCH_SKIP_BUILD === '1') {
    log('using the existing build (BENCH_SKIP_BUILD=1)');
  } else {
    log('building');
    execFileSync(process.execPath, [require.resolve('nx/bin/nx'), 'run-many', '-t', 'build', '--outputStyle=static'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, NX_DAEMON: 'false' },
    });
  }
  const { Platform, api } = require(path.join(ROOT, 'packages/testing/dist'));
  const infra = require(path.join(ROOT, 'deploy/local/infra.js'));

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplatform-bench-'));
  const stoppers = [];
  const cleanup = async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  };
  process.on('SIGINT', () => cleanup().then(() => process.exit(130)));

  try {
    await infra.fetchArtifacts({ quiet: true });
    // agent-memory's embedding model (its hashing fallback runs without it: the report names the provider).
    await require(path.join(ROOT, 'deploy/local/model.js'))
      .fetchModel({ quiet: true })
      .catch((error) => log(error.message));
    const mongo = process.env.MONGODB_URI
      ? { uri: process.env.MONGODB_URI }
      : await infra.startMongo({ port: 0, dataDir: null, logFile: path.join(work, 'mongo.log') });
    if (mongo.stop) stoppers.push(() => mongo.stop());
    const kafka = process.env.KAFKA_BROKERS
      ? { brokers: process.env.KAFKA_BROKERS.split(',') }
      : await infra.startKafka({ port: 0, dataDir: path.join(work, 'kafka'), logFile: path.join(work, 'kafka.log') });
    if (kafka.stop) stoppers.push(() => kafka.stop());

    process.env.AP_TEST_WORKDIR = work;
    const platform = new Platform({
      mongoUri: mongo.uri,
      kafkaBrokers: kafka.brokers,
      // Benchmarks measure the platform, not the free plan's rate limit.
      env: { LOG_LEVEL: 'warn', DEFAULT_PLAN: 'enterprise' },
    });
    stoppers.push(() => platform.stop());
    await platform.start();
    log(`platform at ${platform.url}`);

    const ctx = {
      url: platform.url,
      platform,
      api,
      autocannon,
      measure,
      duration: DURATION,
      connections: CONNECTIONS,
      log,
      work,
      spawnNode,
    };
    const results = new Map();
    const lines = [];
    const dir = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.md`);
    for (const scenario of loadScenarios(filter)) {
      log(`scenario ${scenario.id}`);
      try {
        const state = scenario.setup ? await scenario.setup(ctx) : {};
        try {
          if (scenario.load) {
            const figures = await measure(await scenario.load(ctx, state));
            results.set(scenario.id, { id: scenario.id, ...figures });
            lines.push({ scenario, rows: [{ label: scenario.title, ...figures }] });
          } else {
            const { rows } = await scenario.run(ctx, state);
            if (rows[0]) results.set(scenario.id, { id: scenario.id, ...rows[0] });
            lines.push({ scenario, rows });
          }
        } finally {
          if (scenario.teardown) await scenario.teardown(ctx, state);
        }
      } catch (error) {
        // One broken scenario is reported as such; the others still run and are reported.
        log(`scenario ${scenario.id} failed: ${error.message}`);
        lines.push({ scenario, rows: [{ label: scenario.title, note: `failed: ${error.message.split('\n')[0]}` }] });
      }
      // Written after every scenario, so a long run that is stopped keeps what it measured.
      writeReport(file, dir, results, lines);
    }
    console.log(fs.readFileSync(file, 'utf8'));
    log(`report written to ${path.relative(ROOT, file)}`);
  } finally {
    await cleanup();
  }
}

function writeReport(file, dir, results, lines) {
  const header = [
    `# Benchmark report`,
    '',
    `- date: ${new Date().toISOString()}`,
    `- machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    `- load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per scenario, from the same machine`,
    `- infrastructure: local MongoDB stand-in (mongo-java-server, in memory) and Kafka, all co-located`,
    '',
    '| scenario | req/s | p50 ms | p95 ms | p99 ms | errors | vs baseline | note |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const body = [];
  const notes = [];
  for (const { scenario, rows } of lines) {
    const baseline = scenario.baseline ? results.get(scenario.baseline) : undefined;
    for (const r of rows) body.push(row(scenario.id, r.label, r, baseline));
    if (scenario.target) notes.push(`- ${scenario.title}: target ${scenario.target}`);
  }
  const report = [...header, ...body, '', ...(notes.length ? ['## Targets', '', ...notes, ''] : [])].join('\n');
  fs.writeFileSync(file, `${report}\n`);
  fs.writeFileSync(path.join(dir, 'latest.md'), `${report}\n`);
}

/** Starts a helper Node process (e.g. a baseline server) that exits with the bench. */
function spawnNode(file, env = {}) {
  const child = spawn(process.execPath, [file], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ready = new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk) => resolve(JSON.parse(chunk.toString())));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return {
    child,
    ready,
    stop: () =>
      new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill()))),
  };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
