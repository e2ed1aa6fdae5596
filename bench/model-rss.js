// @ts-check
'use strict';
/**
 * `node bench/model-rss.js` (after a build): what agent-memory's embedding model costs, measured
 * in fresh Node processes (one per configuration, so that RSS figures do not mix):
 * - RSS of a bare process, then with the model loaded in its worker thread (as agent-memory
 *   runs it), after batches of short sentences, and after batches of long (256 word pieces) texts;
 * - throughput of background batches of 16 short sentences (sentences/s, and CPU per sentence);
 * - a query's latency alone, and while background batches keep the worker busy (the priority
 *   lane: a query waits at most for the batch in progress);
 * - CPU per query, one at a time and four at once (queued queries share a model call).
 * Each runs with glibc's malloc set as deploy/ sets it for agent-memory, except 'glibc malloc
 * defaults'. MODEL_DIR overrides the model folder (default: where `node deploy/local/model.js fetch` puts it);
 * CONFIGS=default,off runs only the configurations named (see CONFIGS).
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const MODEL_DIR = process.env.MODEL_DIR || require(path.join(ROOT, 'deploy', 'local', 'model.js')).MODEL_DIR;

const WORDS = 'refund policy return customer order shipping invoice password account security data backup region'.split(
  ' ',
);

function sentence(i, words) {
  return Array.from({ length: words }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ') + ` ${i}`;
}

const mb = (bytes) => Math.round(bytes / 2 ** 20);

async function child() {
  const { MiniLmEmbeddingProvider } = require(
    path.join(ROOT, 'services', 'agent-memory', 'dist', 'embeddings', 'minilm-embedding.provider.js'),
  );
  const logger = { info() {}, warn() {}, error: (...a) => console.error(...a), debug() {} };
  const figures = { bare: mb(process.memoryUsage().rss) };
  if (process.env.MODEL === 'off') {
    console.log(JSON.stringify(figures));
    return;
  }
  const options = JSON.parse(process.env.OPTIONS || '{}');
  const provider = new MiniLmEmbeddingProvider(MODEL_DIR, logger, options);
  while (!provider.ready) await new Promise((resolve) => setTimeout(resolve, 50));
  // Let the loader's garbage go before measuring.
  await new Promise((resolve) => setTimeout(resolve, 500));
  figures.loaded = mb(process.memoryUsage().rss);

  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  const batches = 10;
  for (let b = 0; b < batches; b++) {
    await provider.embed(
      Array.from({ length: 16 }, (_, i) => sentence(b * 16 + i, 12)),
      { background: true },
    );
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  figures.shortPerSecond = Math.round((batches * 16) / seconds);
  figures.cpuMsPerSentence = +((cpu.user + cpu.system) / 1000 / (batches * 16)).toFixed(2);
  figures.afterShort = mb(process.memoryUsage().rss);

  // A query alone, then queries while background batches keep the worker busy.
  const alone = [];
  for (let i = 0; i < 10; i++) {
    const q0 = process.hrtime.bigint();
    await provider.embed([sentence(1000 + i, 4)]);
    alone.push(Number(process.hrtime.bigint() - q0) / 1e6);
  }
  let busy = true;
  const backlog = (async () => {
    for (let b = 0; busy; b++) {
      await provider.embed(
        Array.from({ length: 16 }, (_, i) => sentence(5000 + b * 16 + i, 12)),
        { background: true },
      );
    }
  })();
  const contended = [];
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 37));
    const q0 = process.hrtime.bigint();
    await provider.embed([sentence(2000 + i, 4)]);
    contended.push(Number(process.hrtime.bigint() - q0) / 1e6);
  }
  busy = false;
  await backlog;
  const p = (list, q) => {
    const sorted = [...list].sort((a, b) => a - b);
    return +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  };
  figures.queryAloneMs = { p50: p(alone, 0.5), p95: p(alone, 0.95) };
  figures.queryBehindBacklogMs = { p50: p(contended, 0.5), p95: p(contended, 0.95) };

  // CPU per query, one at a time and four at once (of four tenants, queued behind each other).
  const cpuPerQuery = async (together) => {
    const before = process.cpuUsage();
    for (let r = 0; r < 25; r++) {
      const queries = Array.from({ length: 4 }, (_, i) => sentence(3000 + r * 8 + i * 2 + together, 6));
      if (together) await Promise.all(queries.map((q, i) => provider.embed([q], { tenantId: `t${i}` })));
      else for (const q of queries) await provider.embed([q], { tenantId: 't0' });
    }
    const used = process.cpuUsage(before);
    return +((used.user + used.system) / 1000 / 100).toFixed(2);
  };
  figures.queryCpuMs = { alone: await cpuPerQuery(0), fourAtOnce: await cpuPerQuery(1) };

  for (let b = 0; b < 4; b++) {
    await provider.embed(
      Array.from({ length: 16 }, (_, i) => sentence(b * 16 + i, 300)),
      { background: true },
    );
  }
  figures.afterLong = mb(process.memoryUsage().rss);
  await provider.close();
  console.log(JSON.stringify(figures));
}

const NO_SPIN = { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } };

/** glibc's malloc as deploy/ runs agent-memory (docs/configuration.md, "Memory of agent-memory"). */
const MALLOC = { MALLOC_TRIM_THRESHOLD_: '131072' };

/**
 * The configurations compared (CONFIGS=name,name picks some): the service's default first. `env`
 * is the child's environment over this process's (without MALLOC_* unless named).
 */
const CONFIGS = {
  off: { model: 'off', env: MALLOC },
  default: { env: MALLOC },
  'glibc malloc defaults': { env: {} },
  'malloc: mmap above 1 MB': { env: { ...MALLOC, MALLOC_MMAP_THRESHOLD_: '1048576' } },
  'one call per batch of 16': { backgroundCall: 16, env: MALLOC },
  'calls of 2': { backgroundCall: 2, env: MALLOC },
  'calls of 1': { backgroundCall: 1, env: MALLOC },
  'no weight prepacking': { session: { extra: { session: { ...NO_SPIN, disable_prepacking: '1' } } }, env: MALLOC },
  'basic graph optimisation': { session: { graphOptimizationLevel: 'basic' }, env: MALLOC },
  'no graph optimisation': { session: { graphOptimizationLevel: 'disabled' }, env: MALLOC },
  'all graph optimisations': { session: { graphOptimizationLevel: 'all' }, env: MALLOC },
};

function main() {
  const wanted = process.env.CONFIGS ? process.env.CONFIGS.split(',') : Object.keys(CONFIGS);
  for (const name of wanted) {
    const { model = 'on', env = {}, ...options } = CONFIGS[name];
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MALLOC_')));
    const run = spawnSync(process.execPath, [__filename, '--child'], {
      env: { ...inherited, ...env, MODEL: model, OPTIONS: JSON.stringify(options) },
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`${name}: ${run.stderr}`);
    console.log(`${name}: ${run.stdout.trim()}`);
  }
}

if (process.argv[2] === '--child') {
  child().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else main();
