// @ts-check
'use strict';
const { loggedInUser } = require('./10-auth-me-jwt.js');
const { measureWithCpu } = require('./12-agents-api-key.js');

const TENANTS = 4;

/**
 * GET /api/v1/agents with API keys of several tenants (issue 16), beside `agents-api-key`'s one
 * tenant and one query: identical listings of one grouped call share one read (read coalescing),
 * so that scenario measures the best case. Here, four tenants with three agents and a key each:
 * - "every connection its own query": connection i lists tenant i % 4 with `per_page` 20 + i, so
 *   no two listings in flight are the same and every one is its own read (the worst case);
 * - "four tenants, one query each": connection i lists tenant i % 4 with the default query, so a
 *   group's listings coalesce per tenant, never across tenants.
 * The connections keep their request (autocannon's `setupClient`).
 */
module.exports = {
  id: 'agents-list-mixed',
  title: 'GET /api/v1/agents, four tenants',
  baseline: 'koa-baseline',
  async setup(ctx) {
    const keys = [];
    for (let t = 0; t < TENANTS; t += 1) {
      const { accessToken } = await loggedInUser(ctx);
      const client = ctx.api(ctx.url, accessToken);
      for (let i = 0; i < 3; i += 1) {
        const agent = await client.post('/api/v1/agents', { name: `bench agent ${t}.${i}`, type: 'support' });
        if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${agent.text}`);
      }
      const created = await client.post('/api/v1/auth/api-keys', { name: 'bench', scopes: ['agents:read'] });
      if (created.status !== 201) throw new Error(`create key: ${created.status} ${created.text}`);
      keys.push(created.body.key);
    }
    return { keys };
  },
  async run(ctx, state) {
    /** @param {(i: number) => string} path @param {number} [duration] */
    const load = (path, duration) => {
      let connection = 0;
      return {
        url: `${ctx.url}/api/v1/agents`,
        ...(duration ? { duration } : {}),
        /** @param {{ setRequests: (r: object[]) => void }} client */
        setupClient: (client) => {
          const i = connection++;
          client.setRequests([
            {
              method: 'GET',
              path: path(i),
              headers: { authorization: `Bearer ${state.keys[i % TENANTS]}` },
            },
          ]);
        },
      };
    };
    const distinct = (/** @type {number} */ i) => `/api/v1/agents?per_page=${20 + i}`;
    const perTenant = () => '/api/v1/agents';
    // Warm-up, not measured: the keys' verification, the JIT.
    await ctx.measure(load(distinct, 2));
    const rows = [];
    for (const [label, path] of /** @type {const} */ ([
      ['every connection its own query', distinct],
      ['four tenants, one query each', perTenant],
    ])) {
      const { figures, note } = await measureWithCpu(ctx, load(path));
      rows.push({ label: `${module.exports.title}: ${label}`, ...figures, note });
    }
    return { rows };
  },
};
