// @ts-check
'use strict';

/** GET /healthz through the gateway: request id, logging and error middleware, no backend call. */
module.exports = {
  id: 'gateway-healthz',
  title: 'GET /healthz through the gateway',
  baseline: 'koa-baseline',
  load: (ctx) => ({ url: `${ctx.url}/healthz` }),
};
