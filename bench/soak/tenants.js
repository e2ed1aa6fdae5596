// @ts-check
'use strict';
/**
 * The soak's tenants: each registered (on the plan DEFAULT_PLAN gives new tenants), with credits
 * bought for the whole run, agents to chat with and remember for, a workflow behind a hook, and
 * a webhook subscribed to every event, pointing at the soak's receiver.
 */
const { randomBytes } = require('node:crypto');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const { SCOPES } = require(path.join(ROOT, 'packages/service-kit/dist'));

const AGENTS_PER_TENANT = 4;
const CREDITS = 1_000_000;

/**
 * @param {any} res
 * @param {number} status
 * @param {string} what
 */
function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text?.slice(0, 300)}`);
  return res.body;
}

/**
 * @param {{ url: string, api: (url: string, token?: string) => any, receiverUrl: (path: string) => string }} ctx
 * @param {number} index
 */
async function createTenant(ctx, index) {
  const email = `soak-${index}-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const anon = ctx.api(ctx.url);
  const registered = expectStatus(await anon.post('/api/v1/auth/register', { email, password }), 201, 'register');
  const login = expectStatus(
    await anon.post('/api/v1/auth/login', undefined, { form: { username: email, password } }),
    200,
    'login',
  );
  const owner = ctx.api(ctx.url, login.access_token);
  expectStatus(await owner.post('/api/v1/billing/purchases', { credits: CREDITS }), 201, 'purchase');
  // An API key with every scope: unlike an access token it does not expire during a long run.
  const key = expectStatus(
    await owner.post('/api/v1/auth/api-keys', { name: 'soak', scopes: SCOPES }),
    201,
    'create API key',
  ).key;
  const http = ctx.api(ctx.url, key);
  const agents = [];
  for (let i = 0; i < AGENTS_PER_TENANT; i++) {
    const agent = expectStatus(
      await http.post('/api/v1/agents', { name: `soak-${index}-${i}`, type: 'assistant' }),
      201,
      'create agent',
    );
    agents.push(agent.id);
  }
  const workflow = expectStatus(
    await http.post('/api/v1/workflows', {
      name: `soak-${index}`,
      nodes: [{ id: 'shape', type: 'transform', config: { fields: { n: 'input.body.n' } } }],
    }),
    201,
    'create workflow',
  );
  expectStatus(await http.post(`/api/v1/workflows/${workflow.id}/resume`), 200, 'resume workflow');
  const receiverPath = `/t${index}`;
  const webhook = expectStatus(
    await http.post('/api/v1/webhooks', { url: ctx.receiverUrl(receiverPath), events: ['*'] }),
    201,
    'create webhook',
  );
  const balance = expectStatus(await http.get('/api/v1/billing/credits'), 200, 'credits').balance;
  return {
    index,
    tenantId: registered.tenant_id,
    http,
    token: key,
    agents,
    workflowId: workflow.id,
    hookPath: new URL(workflow.webhook_url).pathname,
    webhookId: webhook.id,
    receiverPath,
    secret: webhook.signing_secret,
    startBalance: balance,
  };
}

module.exports = { createTenant, expectStatus };
