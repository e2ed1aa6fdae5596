// @ts-check
'use strict';
const path = require('node:path');

/** Bare Koa hello world in its own process: the baseline gateway scenarios compare against. */
module.exports = {
  id: 'koa-baseline',
  title: 'bare Koa hello world (baseline)',
  /** Measured too when a filtered run picks one of these, so their ratio is of the same run. */
  baselineFor: ['gateway-healthz', 'auth-me-jwt', 'auth-me-api-key', 'agents-api-key', 'webhook-delivery'],
  async setup(ctx) {
    const server = ctx.spawnNode(path.join(__dirname, '..', 'koa-hello.js'));
    const { port } = await server.ready;
    return { server, url: `http://127.0.0.1:${port}/` };
  },
  load: (_ctx, state) => ({ url: state.url }),
  teardown: (_ctx, state) => state.server.stop(),
};
