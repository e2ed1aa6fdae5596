// @ts-check
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const {
  workflowTenant,
  liftHookLimit,
  createActiveWorkflow,
  measureHookRuns,
} = require('./50-workflow-hook-transform.js');

/** A tiny HTTP endpoint in its own process for the http node to call (keeps it off the bench's event loop). */
const RECEIVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
`;

/** Hook-triggered executions of webhook -> condition -> http (a real HTTP call per run). */
module.exports = {
  id: 'workflow-hook-condition-http',
  title: 'hook -> webhook -> condition -> http',
  async setup(ctx) {
    await liftHookLimit(ctx);
    const file = path.join(ctx.work, 'workflow-http-receiver.js');
    fs.writeFileSync(file, RECEIVER);
    const receiver = ctx.spawnNode(file);
    const { port } = await receiver.ready;
    const http = await workflowTenant(ctx);
    const workflow = await createActiveWorkflow(http, {
      name: 'bench http',
      nodes: [
        { id: 'hook', type: 'webhook' },
        {
          id: 'check',
          type: 'condition',
          config: { rules: [{ if: 'input.body.amount > 100', goto: 'notify' }, { else: 'skip' }] },
        },
        {
          id: 'notify',
          type: 'integration',
          config: {
            service: 'http',
            method: 'POST',
            url: `http://127.0.0.1:${port}/orders`,
            body: { amount: '{{ input.body.amount }}' },
          },
        },
        { id: 'skip', type: 'transform' },
      ],
      edges: [
        { source: 'hook', target: 'check' },
        { source: 'check', target: 'notify' },
        { source: 'check', target: 'skip' },
      ],
    });
    return { http, workflow, receiver, hookUrl: workflow.webhook_url, payload: { amount: 150 } };
  },
  run: (ctx, state) => measureHookRuns(ctx, state, 'webhook -> condition -> http'),
  teardown: (_ctx, state) => state.receiver?.stop(),
};
