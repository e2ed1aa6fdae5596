'use strict';
const { agentWithMemories, sentence } = require('./40-memory-add.js');

/**
 * POST /agents/{id}/chat with the offline local responder: credit check and charge through
 * identity, history, memory retrieval over 200 items, BPE token counting, two outbox events and an
 * episodic memory per turn.
 */
module.exports = {
  id: 'chat-local',
  title: 'POST /api/v1/agents/{id}/chat, local responder',
  async setup(ctx) {
    const state = await agentWithMemories(ctx, 200, 'chat');
    // Welcome credits (1,000) would run out within the load: buy enough for it.
    const bought = await ctx.api(ctx.url, state.accessToken).post('/api/v1/billing/purchases', { credits: 1_000_000 });
    if (bought.status !== 201) throw new Error(`purchase: ${bought.status} ${bought.text}`);
    return { ...state, message: sentence(state.random, 8) };
  },
  load: (ctx, state) => ({
    url: `${ctx.url}/api/v1/agents/${state.agentId}/chat`,
    method: 'POST',
    connections: Math.min(ctx.connections, 16),
    headers: { authorization: `Bearer ${state.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: `What do you know about ${state.message}?` }),
  }),
};
