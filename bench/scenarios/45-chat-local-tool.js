// @ts-check
'use strict';
const { agentWithMemories, sentence } = require('./40-memory-add.js');

/**
 * POST /agents/{id}/chat with one tool: the local responder calls memory_search as a real step
 * (docs/design.md section 9), so a turn is two responder rounds, one search, one stored tool message and
 * the step in the answer, beside everything chat-local does. The ratio to chat-local, measured in
 * the same run with the same data, is the tool loop's overhead.
 */
module.exports = {
  id: 'chat-local-tool',
  title: 'POST /api/v1/agents/{id}/chat, local responder with memory_search tool',
  baseline: 'chat-local',
  async setup(ctx) {
    const state = await agentWithMemories(ctx, 200, 'chat tool');
    const client = ctx.api(ctx.url, state.accessToken);
    const bought = await client.post('/api/v1/billing/purchases', { credits: 1_000_000 });
    if (bought.status !== 201) throw new Error(`purchase: ${bought.status} ${bought.text}`);
    const patched = await client.patch(`/api/v1/agents/${state.agentId}`, {
      config: { tools: [{ type: 'memory_search' }] },
    });
    if (patched.status !== 200) throw new Error(`grant memory_search: ${patched.status} ${patched.text}`);
    const message = sentence(state.random, 8);
    // The scenario measures what it says only if the turn really makes the step.
    const probe = await client.post(`/api/v1/agents/${state.agentId}/chat`, { message });
    if (probe.status !== 200 || probe.body.steps?.[0]?.tool !== 'memory_search') {
      throw new Error(`probe chat made no memory_search step: ${probe.status} ${probe.text.slice(0, 200)}`);
    }
    return { ...state, message };
  },
  load: (ctx, state) => ({
    url: `${ctx.url}/api/v1/agents/${state.agentId}/chat`,
    method: 'POST',
    connections: Math.min(ctx.connections, 16),
    headers: { authorization: `Bearer ${state.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: `What do you know about ${state.message}?` }),
  }),
};
