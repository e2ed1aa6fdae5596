'use strict';
const { feedLive, loggedInUser } = require('./10-auth-me-jwt.js');

/**
 * GET /api/v1/agents with an API key (issue 16): the key verified by identity once and cached in
 * the gateway (dropped by a revocation), the rate limiter (unlimited plan here), then one
 * ListAgents gRPC call that reads the tenant's page of agents. The tenant has three agents, so the
 * page is not full and agent-memory makes one database call (no count).
 */
module.exports = {
  id: 'agents-api-key',
  title: 'GET /api/v1/agents with an API key',
  baseline: 'koa-baseline',
  async setup(ctx) {
    await feedLive(ctx);
    const { accessToken } = await loggedInUser(ctx);
    const client = ctx.api(ctx.url, accessToken);
    for (let i = 0; i < 3; i += 1) {
      const agent = await client.post('/api/v1/agents', { name: `bench agent ${i}`, type: 'support' });
      if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${agent.text}`);
    }
    const created = await client.post('/api/v1/auth/api-keys', { name: 'bench', scopes: ['agents:read'] });
    if (created.status !== 201) throw new Error(`create key: ${created.status} ${created.text}`);
    return { key: created.body.key };
  },
  load: (ctx, state) => ({
    url: `${ctx.url}/api/v1/agents`,
    headers: { authorization: `Bearer ${state.key}` },
  }),
};
