// @ts-check
'use strict';
const { feedLive, loggedInUser } = require('./10-auth-me-jwt.js');
const { cpuSeconds, standInPid } = require('./40-memory-add.js');

/** The processes a listing goes through; their CPU per request is reported beside the rate. */
const PROCESSES = ['gateway', 'identity', 'agent-memory'];

function load(ctx, state, duration) {
  return {
    url: `${ctx.url}/api/v1/agents`,
    headers: { authorization: `Bearer ${state.key}` },
    ...(duration ? { duration } : {}),
  };
}

/**
 * GET /api/v1/agents with an API key (issue 16): the key verified by identity once and cached in
 * the gateway (dropped by a revocation), the rate limiter (unlimited plan here), then one
 * ListAgents gRPC call that reads the tenant's page of agents. The tenant has three agents, so the
 * page is not full and agent-memory makes one database call (no count). Besides req/s, the CPU
 * each process spent per request (gateway, identity, agent-memory, the MongoDB stand-in, and the
 * bench process that runs the load generator), which depends far less on a shared machine's load.
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
  async run(ctx, state) {
    // Warm-up, not measured: the key's verification, the JIT.
    await ctx.measure(load(ctx, state, 2));
    const { figures, note } = await measureWithCpu(ctx, load(ctx, state));
    return { rows: [{ label: module.exports.title, ...figures, note }] };
  },
  measureWithCpu,
};

/** One load, with the CPU ms per request of each process a listing goes through (the row's note). */
async function measureWithCpu(ctx, options) {
  const pids = [...PROCESSES.map((name) => ctx.platform.service(name).pid), standInPid(ctx.platform.mongoUri)];
  const own = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  };
  const cpu = () => [...pids.map((pid) => (pid ? cpuSeconds(pid) : 0)), own()];
  const before = cpu();
  const figures = await ctx.measure(options);
  const perRequest = cpu().map((seconds, i) =>
    figures.requests > 0 ? ((seconds - before[i]) * 1000) / figures.requests : 0,
  );
  const names = [...PROCESSES, 'MongoDB stand-in', 'load generator'];
  const note = `CPU ms per request: ${names
    .map((name, i) => `${name} ${i === 3 && !pids[3] ? 'n/a' : perRequest[i].toFixed(2)}`)
    .join(', ')}`;
  ctx.log(note);
  return { figures, note };
}
