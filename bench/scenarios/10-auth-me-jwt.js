'use strict';
const { randomBytes } = require('node:crypto');

/** Registers a user and logs in; shared by the /auth/me scenarios. */
async function loggedInUser(ctx) {
  const email = `bench-${randomBytes(6).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const client = ctx.api(ctx.url);
  const registered = await client.post('/api/v1/auth/register', { email, password });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registered.text}`);
  const login = await client.post('/api/v1/auth/login', undefined, { form: { username: email, password } });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
  return { accessToken: login.body.access_token };
}

/**
 * GET /api/v1/auth/me with an access token: JWT verified locally (cached JWKS), the user's tenant
 * access from a short cache, the rate limiter (unlimited plan here), then one GetMe gRPC call.
 */
module.exports = {
  id: 'auth-me-jwt',
  title: 'GET /api/v1/auth/me with a JWT',
  baseline: 'koa-baseline',
  loggedInUser,
  async setup(ctx) {
    return loggedInUser(ctx);
  },
  load: (ctx, state) => ({
    url: `${ctx.url}/api/v1/auth/me`,
    headers: { authorization: `Bearer ${state.accessToken}` },
  }),
};
