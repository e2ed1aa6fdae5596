// @ts-check
'use strict';
const { agentWithMemories, measuredAdds, post, sentence } = require('./40-memory-add.js');

const PER_BATCH = 50;
const CONCURRENCY = 4;
/** BENCH_MEMORY_BATCH_ADDS: another number of memories (e.g. a shorter run first). */
const MEMORIES = Number(process.env.BENCH_MEMORY_BATCH_ADDS || 6_000);

/**
 * Memory adds through `POST /api/v1/memory/batch`: 6,000 memories in batches of 50, four batches
 * in flight, on a fresh agent. The req/s column is memories accepted per second (the target's
 * unit); p50-p99 are per batch. The note has CPU per memory of every process, as memory-add's, and
 * the time until the last vector is stored. Single adds stay a figure of their own (memory-add).
 */
module.exports = {
  id: 'memory-add-batch',
  title: `POST /api/v1/memory/batch (${PER_BATCH} items per batch), concurrency ${CONCURRENCY}`,
  target: '>= 1,000 memories accepted/s (embedding follows asynchronously)',
  setup: (ctx) => agentWithMemories(ctx, 0, 'add batch'),
  async run(ctx, state) {
    const { figures, perSecond, note } = await measuredAdds(ctx, state, {
      memories: MEMORIES,
      perRequest: PER_BATCH,
      concurrency: CONCURRENCY,
      request: (b) =>
        post(ctx, state.accessToken, '/memory/batch', {
          agent_id: state.agentId,
          items: Array.from({ length: PER_BATCH }, (_, i) => ({
            content: `${sentence(state.random)} added ${b * PER_BATCH + i}`,
            metadata: { n: i % 10 },
          })),
        }),
    });
    const full = `memories/s in req/s, latency per batch of ${PER_BATCH} (${figures.rps} batches/s); ${note}`;
    ctx.log(full);
    return { rows: [{ label: 'memory add, batches', ...figures, rps: perSecond, note: full }] };
  },
};
