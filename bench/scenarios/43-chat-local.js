// @ts-check
'use strict';
const fs = require('node:fs');
const { agentWithMemories, sentence } = require('./40-memory-add.js');

/** The processes a chat goes through; their CPU per chat is reported beside the rate. */
const PROCESSES = ['gateway', 'identity', 'agent-memory'];

/** CPU milliseconds a process has used so far (utime + stime from /proc, Linux). */
function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** gRPC calls identity has handled so far (its metrics' call counts, every method). */
async function identityCalls(ctx) {
  const port = ctx.platform.service('identity').ready?.metrics_port;
  if (!port) return 0;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('grpc_server_handling_seconds_count'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * Waits until the gateway has no chat in flight to agent-memory. autocannon ends a load with a
 * request in flight on every connection and hangs up: the gateway still runs those turns to their
 * end, and while they hold its places for agent-memory (AGENT_MEMORY_MAX_IN_FLIGHT), the next load's
 * requests beyond the free places are shed with 503 (nothing done, Retry-After) and counted as
 * errors, which also inflates req/s. Measuring from a quiet gateway compares successful turns.
 */
async function quiet(ctx, timeoutMs = 60_000) {
  const port = ctx.platform.service('gateway').ready?.metrics_port;
  if (!port) return;
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const inFlight = /^gateway_backend_in_flight\{[^}]*target="agent-memory"[^}]*\} (\d+)/m.exec(text);
    if (!inFlight || Number(inFlight[1]) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the gateway still had chats in flight ${timeoutMs} ms after the warm-up`);
}

/**
 * The gateway's calls in flight to agent-memory at most (its AGENT_MEMORY_MAX_IN_FLIGHT, which the
 * bench's environment passes on): a closed loop of more connections than that would only measure
 * the gateway shedding the rest.
 */
const AGENT_MEMORY_MAX_IN_FLIGHT = Number(process.env.AGENT_MEMORY_MAX_IN_FLIGHT || 32);

/** The connections of a chat load: the bench's, at most the gateway's bound on agent-memory. */
function chatConnections(ctx) {
  return Math.min(ctx.connections, AGENT_MEMORY_MAX_IN_FLIGHT);
}

function load(ctx, state, duration) {
  return {
    url: `${ctx.url}/api/v1/agents/${state.agentId}/chat`,
    method: 'POST',
    connections: chatConnections(ctx),
    ...(duration ? { duration } : {}),
    headers: { authorization: `Bearer ${state.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: `What do you know about ${state.message}?` }),
  };
}

/**
 * POST /agents/{id}/chat with the offline local responder at 32 connections (the gateway's bound on
 * agent-memory; the bench's connections if fewer): credit
 * reserve and settle through identity, memory retrieval over 200 items (and the episodic memories
 * the load adds), BPE token counting, the turn's writes, two outbox events and an episodic memory
 * per turn. The message is the same every time, so its query vector comes from the cache after
 * the first; the episodic memories wait for the embedding backlog, which runs in agent-memory's
 * model worker (from EMBEDDINGS_YIELD_MS into the load on, at a quarter of a core while the chats
 * go on) and is part of its CPU. CPU per chat is read from /proc: on a
 * shared machine req/s follow the share of the cores the processes get, CPU per chat does not.
 */
module.exports = {
  id: 'chat-local',
  title: 'POST /api/v1/agents/{id}/chat, local responder',
  target: '>= 150 chats/s with p99 <= 500 ms (32 connections)',
  baselineFor: ['chat-local-tool', 'chat-openai-stream'],
  async setup(ctx) {
    const state = await agentWithMemories(ctx, 200, 'chat');
    // Welcome credits (1,000) would run out within the load: buy enough for it.
    const bought = await ctx.api(ctx.url, state.accessToken).post('/api/v1/billing/purchases', { credits: 1_000_000 });
    if (bought.status !== 201) throw new Error(`purchase: ${bought.status} ${bought.text}`);
    return { ...state, message: sentence(state.random, 8) };
  },
  async run(ctx, state) {
    // Warm-up at the measured load, not reported: the index load, the query's vector, the JIT.
    await ctx.measure(load(ctx, state, 3));
    await quiet(ctx);
    const pids = PROCESSES.map((name) => ctx.platform.service(name).pid);
    const callsBefore = await identityCalls(ctx);
    const before = pids.map(cpuMs);
    const figures = await ctx.measure(load(ctx, state));
    const perChat = pids.map((pid, i) => (figures.requests > 0 ? (cpuMs(pid) - before[i]) / figures.requests : 0));
    const calls = figures.requests > 0 ? ((await identityCalls(ctx)) - callsBefore) / figures.requests : 0;
    const note =
      `CPU ms per chat: ${PROCESSES.map((name, i) => `${name} ${perChat[i].toFixed(1)}`).join(', ')}; ` +
      `identity calls per chat ${calls.toFixed(2)}`;
    return { rows: [{ label: module.exports.title, ...figures, note }] };
  },
  chatConnections,
  cpuMs,
  quiet,
  PROCESSES,
};
