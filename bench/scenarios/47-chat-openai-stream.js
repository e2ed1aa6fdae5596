// @ts-check
'use strict';
const { agentWithMemories, sentence } = require('./40-memory-add.js');
const { chatConnections, cpuMs, quiet, PROCESSES } = require('./43-chat-local.js');

/** Sequential streamed turns per route for time to first token and tokens/s (after one warm-up). */
const STREAMED_TURNS = 20;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * One streamed turn read as it arrives: milliseconds to the first piece of text; tokens per second
 * from then to the last piece (the turn's completion tokens, as the route reports them); and the
 * tail, milliseconds from the last piece to the stream's end. The tail is agent-memory's work after
 * the reply (the turn's writes, the credit settle, the episodic memory), the same for both routes
 * and on a loaded machine longer than the text's stream: counted in tokens/s it hid the routes'
 * own cost, so it is reported apart.
 * @param {string} url @param {Record<string, string>} headers @param {unknown} body
 * @param {(data: any, event: string) => { text?: string; tokens?: number }} read
 */
async function streamedTurn(url, headers, body, read) {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (res.status !== 200 || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let first = 0;
  let last = 0;
  let tokens = 0;
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data || data === '[DONE]') continue;
      const seen = read(JSON.parse(data), event);
      if (seen.text) {
        last = performance.now();
        if (!first) first = last;
      }
      if (seen.tokens) tokens = seen.tokens;
    }
  }
  const done = performance.now();
  return {
    ttft: first - started,
    tokensPerSecond: last > first ? (tokens * 1000) / (last - first) : 0,
    tail: last ? done - last : 0,
  };
}

/**
 * Median time to first token and tokens/s of STREAMED_TURNS turns per route, after one warm-up
 * turn each, and the gateway's CPU ms per turn (`gatewayCpu()` read around each turn). The routes
 * take turns, and which goes first alternates, so both see the same load on a shared machine and
 * the same warmth: their ratio is what the scenario reports.
 * @param {Record<string, () => Promise<{ ttft: number; tokensPerSecond: number; tail: number }>>} routes
 * @param {() => number} gatewayCpu
 */
async function streamFigures(routes, gatewayCpu) {
  const names = Object.keys(routes);
  for (const name of names) await routes[name]();
  /** @type {Record<string, Array<{ ttft: number; tokensPerSecond: number; tail: number }>>} */
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  const cpu = Object.fromEntries(names.map((name) => [name, 0]));
  for (let i = 0; i < STREAMED_TURNS; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const before = gatewayCpu();
      runs[name].push(await routes[name]());
      cpu[name] += gatewayCpu() - before;
    }
  }
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        ttft: median(runs[name].map((r) => r.ttft)),
        tps: median(runs[name].map((r) => r.tokensPerSecond)),
        tail: median(runs[name].map((r) => r.tail)),
        gatewayCpuMs: cpu[name] / STREAMED_TURNS,
      },
    ]),
  );
}

/**
 * POST /openai/v1/chat/completions (docs/openai-compatibility.md) against the same kind of agent
 * as chat-local, in the same run, answered as JSON like chat-local (autocannon completed no
 * streamed answer here): its req/s ratio and its CPU ms per chat beside chat-local's are what the
 * OpenAI route costs beyond the native one (at most 10% by issue 37; on a shared machine only the
 * CPU per chat holds still). Beside it, time to first token and tokens/s of single streamed turns
 * (`stream: true` with usage) through the OpenAI route and the native route's own stream (Accept:
 * text/event-stream), with the local responder, taking turns, and their ratios: the streamed
 * OpenAI route's target (issue 37) is a first token at most 10% later and tokens/s at most 10%
 * fewer (>= 1 / 1.1 of the native's).
 */
module.exports = {
  id: 'chat-openai-stream',
  title: 'POST /openai/v1/chat/completions, local responder',
  baseline: 'chat-local',
  async setup(ctx) {
    const state = await agentWithMemories(ctx, 200, 'chat openai');
    const bought = await ctx.api(ctx.url, state.accessToken).post('/api/v1/billing/purchases', { credits: 1_000_000 });
    if (bought.status !== 201) throw new Error(`purchase: ${bought.status} ${bought.text}`);
    return { ...state, message: sentence(state.random, 8) };
  },
  async run(ctx, state) {
    const headers = { authorization: `Bearer ${state.accessToken}`, 'content-type': 'application/json' };
    const content = `What do you know about ${state.message}?`;
    const completion = {
      model: state.agentId,
      messages: [{ role: 'user', content }],
      stream: true,
      stream_options: { include_usage: true },
    };
    const { openAi, native } = await streamFigures(
      {
        openAi: () =>
          streamedTurn(`${ctx.url}/openai/v1/chat/completions`, headers, completion, (data) => ({
            text: data.choices?.[0]?.delta?.content,
            tokens: data.usage?.completion_tokens,
          })),
        native: () =>
          streamedTurn(
            `${ctx.url}/api/v1/agents/${state.agentId}/chat`,
            { ...headers, accept: 'text/event-stream' },
            { message: content },
            (data, event) => ({
              text: event === 'delta' ? data.content : undefined,
              tokens: event === 'done' ? data.usage.completion_tokens : undefined,
            }),
          ),
      },
      () => cpuMs(ctx.platform.service('gateway').pid),
    );
    const load = (duration) => ({
      url: `${ctx.url}/openai/v1/chat/completions`,
      method: 'POST',
      connections: chatConnections(ctx),
      ...(duration ? { duration } : {}),
      headers,
      body: JSON.stringify({ model: state.agentId, messages: completion.messages }),
    });
    await ctx.measure(load(3));
    await quiet(ctx);
    const pids = PROCESSES.map((name) => ctx.platform.service(name).pid);
    const before = pids.map(cpuMs);
    const figures = await ctx.measure(load());
    // CPU per chat, as chat-local reports it: on a shared machine req/s follow the cores' share, this does not.
    const perChat = pids.map((pid, i) => (figures.requests > 0 ? (cpuMs(pid) - before[i]) / figures.requests : 0));
    const note =
      `CPU ms per chat: ${PROCESSES.map((name, i) => `${name} ${perChat[i].toFixed(1)}`).join(', ')}; ` +
      `single streamed turns (median of ${STREAMED_TURNS} each, interleaved): ` +
      `OpenAI route first token ${openAi.ttft.toFixed(1)} ms, ${Math.round(openAi.tps)} tokens/s, ` +
      `tail ${openAi.tail.toFixed(1)} ms, ` +
      `gateway CPU ${openAi.gatewayCpuMs.toFixed(1)} ms per turn; ` +
      `native stream first token ${native.ttft.toFixed(1)} ms, ${Math.round(native.tps)} tokens/s, ` +
      `tail ${native.tail.toFixed(1)} ms, ` +
      `gateway CPU ${native.gatewayCpuMs.toFixed(1)} ms per turn; ` +
      `OpenAI / native: first token ${(openAi.ttft / native.ttft).toFixed(2)}x (target <= 1.10), ` +
      `tokens/s ${(openAi.tps / native.tps).toFixed(2)}x (target >= 0.91)`;
    return { rows: [{ label: module.exports.title, ...figures, note }] };
  },
};
