// @ts-check
'use strict';
/** The bare Koa hello-world baseline: what Koa alone costs on this machine, in this run. */
const Koa = require('koa');

const app = new Koa();
app.use((ctx) => {
  ctx.body = { status: 'ok' };
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port })}\n`,
  );
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
