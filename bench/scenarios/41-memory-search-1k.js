// @ts-check
'use strict';
const os = require('node:os');
const {
  agentWithMemories,
  latencies,
  post,
  sentence,
  cpuSeconds,
  standInPid,
  itemsWithoutVector,
} = require('./40-memory-add.js');

const COUNT = 1_000;

/**
 * Hybrid memory search through the gateway at 1,000 items per agent, concurrency 4 (target p95 <=
 * 30 ms with the model on). Measured twice: while the embedding backlog still embeds the 1,000
 * seeded items (the model's worker then takes most of a core), and after every vector is stored
 * (the steady state of an agent with 1,000 memories). Each row also gives the CPU per search of
 * agent-memory (its main thread, and its other threads: the model's worker, V8's helpers), the
 * gateway and the MongoDB stand-in, and the load average: on a shared machine latencies follow
 * the CPU share the processes get, CPU per search does not.
 */
module.exports = {
  id: 'memory-search-1k',
  title: `POST /api/v1/memory/search, ${COUNT.toLocaleString('en')} items per agent (concurrency 4)`,
  target: 'p95 <= 30 ms',
  setup: (ctx) => agentWithMemories(ctx, COUNT, `search ${COUNT}`),
  async run(ctx, state) {
    const memory = ctx.platform.service('agent-memory').pid;
    const gateway = ctx.platform.service('gateway').pid;
    const standIn = standInPid(ctx.platform.mongoUri);
    const cpu = () => [
      cpuSeconds(memory, true),
      cpuSeconds(memory),
      cpuSeconds(gateway),
      standIn ? cpuSeconds(standIn) : 0,
    ];
    const queries = Array.from({ length: 50 }, () => sentence(state.random, 4));
    const search =
      (extra = {}) =>
      (i) =>
        post(ctx, state.accessToken, '/memory/search', {
          agent_id: state.agentId,
          query: queries[i % queries.length],
          top_k: 10,
          ...extra,
        });
    /** One measured load, with CPU per search and how many items lacked a vector before and after. */
    const measured = async (label, total, request) => {
      const waitingBefore = await itemsWithoutVector(ctx, state.agentId);
      const before = cpu();
      const load = os.loadavg()[0];
      const figures = await latencies({ total, concurrency: 4, request });
      const ms = cpu().map((seconds, i) => ((seconds - before[i]) * 1000) / total);
      const waitingAfter = await itemsWithoutVector(ctx, state.agentId);
      const note =
        `CPU per search: agent-memory ${ms[1].toFixed(2)} ms (main thread ${ms[0].toFixed(2)} ms, other threads ` +
        `${(ms[1] - ms[0]).toFixed(2)} ms), gateway ${ms[2].toFixed(2)} ms, MongoDB stand-in ` +
        `${standIn ? `${ms[3].toFixed(2)} ms` : 'n/a'}; items without a vector ${waitingBefore} -> ${waitingAfter}; ` +
        `load average ${load.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}`;
      ctx.log(`${label}: p95 ${figures.p95} ms; ${note}`);
      return { label, ...figures, note };
    };
    // Warm-up, not measured: the first search loads the agent's index into the replica's cache and
    // embeds the 50 queries (cached from then on); the JIT compiles the search path.
    await latencies({ total: 400, concurrency: 4, request: search() });
    const draining = await measured(
      `search, ${COUNT.toLocaleString('en')} items, while the backlog embeds them`,
      2_000,
      search(),
    );
    const waitStarted = Date.now();
    while ((await itemsWithoutVector(ctx, state.agentId)) > 0 && Date.now() - waitStarted < 600_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    ctx.log(`every vector stored ${((Date.now() - waitStarted) / 1000).toFixed(1)} s after the first measurement`);
    await latencies({ total: 200, concurrency: 4, request: search() });
    const steady = await measured(`search, ${COUNT.toLocaleString('en')} items, every vector stored`, 2_000, search());
    const filtered = await measured(
      `search with filters and min_score, ${COUNT.toLocaleString('en')} items, every vector stored`,
      500,
      search({ filters: { n: { gte: 5 } }, min_score: 0.1 }),
    );
    return { rows: [draining, steady, filtered] };
  },
};
