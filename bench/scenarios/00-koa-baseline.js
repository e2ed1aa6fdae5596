'use strict';
const path = require('node:path');

/** Bare Koa hello world in its own process: the baseline gateway scenarios compare against. */
module.exports = {
  id: 'koa-baseline',
  title: 'bare Koa hello world (baseline)',
  // Runs with the webhook scenarios too (`npm run bench -- webhook`), so their figures have a baseline of the same run.
  baselineFor: ['webhook-delivery'],
  async setup(ctx) {
    const server = ctx.spawnNode(path.join(__dirname, '..', 'koa-hello.js'));
    const { port } = await server.ready;
    return { server, url: `http://127.0.0.1:${port}/` };
  },
  load: (_ctx, state) => ({ url: state.url }),
  teardown: (_ctx, state) => state.server.stop(),
};
