// @ts-check
'use strict';
const { workflowTenant } = require('./50-workflow-hook-transform.js');

const RUNS = 100;

function chain(type, count, config) {
  const nodes = Array.from({ length: count }, (_, i) => ({ id: `n${i}`, type, config }));
  const edges = nodes.slice(1).map((n, i) => ({ source: nodes[i].id, target: n.id }));
  return { name: `bench ${type} x${count}`, nodes, edges };
}

async function meanDuration(http, body) {
  const created = await http.post('/api/v1/workflows', body);
  if (created.status !== 201) throw new Error(`create workflow: ${created.status} ${created.text}`);
  let total = 0;
  for (let i = 0; i < RUNS; i++) {
    const res = await http.post(`/api/v1/workflows/${created.body.id}/execute`, { input: { n: i } });
    if (res.body.status !== 'completed') throw new Error(`run: ${res.status} ${res.text}`);
    total += res.body.duration_ms;
  }
  return total / RUNS;
}

/**
 * What one more node costs inside an execution (the engine's duration_ms, sequential synchronous
 * runs): a pure node (transform: CEL, batched into the final write) and a checkpointed node (delay
 * 0 ms: stored before and after, as every node with side effects is).
 */
module.exports = {
  id: 'workflow-node-overhead',
  title: 'per-node overhead',
  async setup(ctx) {
    return { http: await workflowTenant(ctx) };
  },
  async run(_ctx, { http }) {
    const fields = { fields: { n: 'n + 1' } };
    const one = await meanDuration(http, chain('transform', 1, fields));
    const pure = await meanDuration(http, chain('transform', 21, fields));
    const delays = chain('delay', 10, { ms: 0 });
    const stored = await meanDuration(http, {
      name: 'bench transform + delay x10',
      nodes: [{ id: 'start', type: 'transform', config: fields }, ...delays.nodes],
      edges: [{ source: 'start', target: 'n0' }, ...delays.edges],
    });
    return {
      rows: [
        { label: 'execution of 1 transform node (mean duration)', note: `${one.toFixed(2)} ms over ${RUNS} runs` },
        { label: 'per pure node (transform)', note: `${((pure - one) / 20).toFixed(3)} ms per node (21 vs 1 nodes)` },
        {
          label: 'per checkpointed node (delay 0 ms)',
          note: `${((stored - one) / 10).toFixed(3)} ms per node (1 + 10 vs 1 nodes)`,
        },
      ],
    };
  },
};
