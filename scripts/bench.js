#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm run bench [-- <filter>[,<filter>...]]`: builds, starts the local infrastructure and a whole
 * platform of real processes, runs the scenarios in bench/scenarios/ (all, or those whose id
 * contains one of the filters) and writes a markdown report to bench/results/<timestamp>.md and bench/results/latest.md.
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
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
require('./ensure-install').ensureInstalled();
const { build, startLocalPlatform } = require('./local-platform');
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

/**
 * The scenarios in run order. Each file starts with a number of its own (the order, and how the
 * docs name a scenario's file) and exports an id of its own (what a filter matches).
 */
function loadScenarios(filter) {
  const dir = path.join(ROOT, 'bench', 'scenarios');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort();
  const scenarios = files.map((f) => require(path.join(dir, f)));
  const numbers = files.map((f) => f.split('-')[0]);
  const ids = scenarios.map((s) => s.id);
  /** @type {Array<[string, string[]]>} */
  const lists = [
    ['number', numbers],
    ['id', ids],
  ];
  for (const [what, names] of lists) {
    const twice = names.filter((name, i) => names.indexOf(name) !== i);
    if (twice.length > 0)
      throw new Error(`bench/scenarios: more than one scenario with the ${what} ${twice.join(', ')}`);
  }
  // Several filters, comma-separated, select the scenarios any of them matches.
  const filters = (filter ?? '').split(',').filter(Boolean);
  const matches = (/** @type {string} */ id) => filters.some((f) => id.includes(f));
  return scenarios.filter(
    (s) => filters.length === 0 || matches(s.id) || (s.baselineFor ?? []).some((id) => matches(id)),
  );
}

function row(title, figures, baseline) {
  const ratio = baseline && baseline.rps ? `${(figures.rps / baseline.rps).toFixed(2)}x of ${baseline.id}` : '';
  return `| ${title} | ${figures.rps ?? ''} | ${figures.p50 ?? ''} | ${figures.p95 ?? ''} | ${figures.p99 ?? ''} | ${figures.errors ?? 0} | ${ratio} | ${figures.note ?? ''} |`;
}

async function main() {
  const filter = process.argv[2];
  if (process.env.BENCH_SKIP_BUILD === '1') log('using the existing build (BENCH_SKIP_BUILD=1)');
  else build(log);
  const { api } = require(path.join(ROOT, 'packages/testing/dist'));

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplatform-bench-'));
  const stoppers = [];
  const cleanup = async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  };
  process.on('SIGINT', () => cleanup().then(() => process.exit(130)));

  try {
    const started = await startLocalPlatform({
      work,
      log,
      // Benchmarks measure the platform, not the free plan's rate limit, nor one tenant's share of
      // the gateway's places for a backend (each scenario loads one tenant; the shares between
      // tenants are the e2e suites' subject).
      env: { LOG_LEVEL: 'warn', DEFAULT_PLAN: 'enterprise', BACKEND_TENANT_SHARE: '1' },
    });
    stoppers.push(started.stop);
    const platform = started.platform;

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
        const message = error instanceof Error ? error.message : String(error);
        log(`scenario ${scenario.id} failed: ${message}`);
        lines.push({ scenario, rows: [{ label: scenario.title, note: `failed: ${message.split('\n')[0]}` }] });
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
    for (const r of rows) body.push(row(r.label, r, baseline));
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
      new Promise((resolve) =>
        child.exitCode !== null ? resolve(undefined) : (child.once('exit', () => resolve(undefined)), child.kill()),
      ),
  };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
