// @ts-check
'use strict';
const { feedLive, loggedInUser } = require('./10-auth-me-jwt.js');

/**
 * GET /api/v1/auth/me with an API key: verified by identity (SHA-256 lookup) and cached for a
 * few seconds, so most requests make only the GetMe gRPC call.
 */
module.exports = {
  id: 'auth-me-api-key',
  title: 'GET /api/v1/auth/me with an API key',
  baseline: 'koa-baseline',
  async setup(ctx) {
    await feedLive(ctx);
    const { accessToken } = await loggedInUser(ctx);
    const created = await ctx
      .api(ctx.url, accessToken)
      .post('/api/v1/auth/api-keys', { name: 'bench', scopes: ['agents:read'] });
    if (created.status !== 201) throw new Error(`create key: ${created.status} ${created.text}`);
    return { key: created.body.key };
  },
  load: (ctx, state) => ({
    url: `${ctx.url}/api/v1/auth/me`,
    headers: { authorization: `Bearer ${state.key}` },
  }),
};
