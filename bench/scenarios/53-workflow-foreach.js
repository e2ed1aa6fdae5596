// @ts-check
'use strict';
const { workflowTenant } = require('./50-workflow-hook-transform.js');

const ITEMS = 500;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function create(http, body) {
  const created = await http.post('/api/v1/workflows', body);
  if (created.status !== 201) throw new Error(`create workflow: ${created.status} ${created.text}`);
  return created.body;
}

/** Runs the parent once over ITEMS items and answers the children per second, start to end. */
async function childrenPerSecond(http, parent) {
  const input = { list: Array.from({ length: ITEMS }, (_, i) => i) };
  const startedAt = Date.now();
  const started = await http.post(`/api/v1/workflows/${parent.id}/execute`, { input, async: true });
  if (started.status !== 202) throw new Error(`execute: ${started.status} ${started.text}`);
  for (;;) {
    const res = await http.get(`/api/v1/workflows/${parent.id}/executions/${started.body.execution_id}`);
    if (res.body.status === 'completed') {
      if (res.body.output.results.length !== ITEMS) throw new Error('missing results');
      const seconds = (Date.now() - startedAt) / 1000;
      return { rate: ITEMS / seconds, seconds };
    }
    if (res.body.status !== 'running') throw new Error(`foreach ${res.body.status}: ${res.body.error}`);
    await sleep(50);
  }
}

/**
 * For-each throughput (issue 18): one foreach node over 500 items, each a child execution of its
 * own (a credit, an execution document, events). Two children: a pure one (a transform, finished
 * before it is stored: one write) and a checkpointed one (a delay of 0 ms: insert, lease, progress
 * and end writes like any run with side effects), at concurrency 16 (and 4 for the stored one).
 */
module.exports = {
  id: 'workflow-foreach',
  title: 'foreach throughput (children/s)',
  async setup(ctx) {
    const http = await workflowTenant(ctx);
    const pure = await create(http, {
      name: 'bench child pure',
      nodes: [{ id: 'sq', type: 'transform', config: { fields: { sq: 'input.item * input.item' } } }],
    });
    const stored = await create(http, {
      name: 'bench child stored',
      nodes: [
        { id: 'wait', type: 'delay', config: { ms: 0 } },
        { id: 'sq', type: 'transform', config: { fields: { sq: 'input.item * input.item' } } },
      ],
      edges: [{ source: 'wait', target: 'sq' }],
    });
    const parent = (child, concurrency) =>
      create(http, {
        name: `bench foreach ${concurrency}`,
        nodes: [{ id: 'each', type: 'foreach', config: { workflow_id: child.id, items: 'input.list', concurrency } }],
      });
    return {
      http,
      parents: [
        { label: 'pure child (transform), concurrency 16', workflow: await parent(pure, 16) },
        { label: 'stored child (delay 0 + transform), concurrency 16', workflow: await parent(stored, 16) },
        { label: 'stored child (delay 0 + transform), concurrency 4', workflow: await parent(stored, 4) },
      ],
    };
  },
  async run(_ctx, { http, parents }) {
    const rows = [];
    for (const { label, workflow } of parents) {
      const { rate, seconds } = await childrenPerSecond(http, workflow);
      rows.push({
        label: `foreach of ${ITEMS}: ${label}`,
        note: `${rate.toFixed(1)} children/s (${seconds.toFixed(2)} s for the whole foreach)`,
      });
    }
    return { rows };
  },
};
