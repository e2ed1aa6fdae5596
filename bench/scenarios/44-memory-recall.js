// @ts-check
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { loggedInUser } = require('./10-auth-me-jwt.js');
const { latencies, post } = require('./40-memory-add.js');

/*
 * Retrieval quality on long conversations (issue 19): a LoCoMo-format file (MEMORY_EVAL_DATA;
 * where to get LoCoMo: docs/memory-search.md, "Memory recall") goes through the public API, one agent per conversation and one memory
 * per turn ("<speaker>: <text>", the turn's id and session date in metadata). For every question
 * of categories 1-4 (5 is adversarial, with no evidence) the platform's search must return the
 * evidence turns among its top 10: recall@10, averaged over questions, beside a plain BM25
 * computed here over the same texts (k1 1.2, b 0.75, lowercase alphanumeric tokens, per
 * conversation). Also: how fast adds were accepted, how long the embedding backlog took to drain
 * (the bound until an added memory is semantically searchable), and search latency.
 */

const DATA = process.env.MEMORY_EVAL_DATA ? path.resolve(process.env.MEMORY_EVAL_DATA) : '';
const K = 10;

/** The turns of a conversation in order, with their session's date. */
function turnsOf(conversation) {
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .map((m) => (m ? Number(m[1]) : NaN))
    .filter((n) => !Number.isNaN(n))
    .sort((a, b) => a - b);
  return sessions.flatMap((n) =>
    conversation[`session_${n}`].map((turn) => ({
      diaId: turn.dia_id,
      content: `${turn.speaker}: ${turn.text}`,
      session: n,
      date: conversation[`session_${n}_date_time`] ?? '',
    })),
  );
}

/** The questions that have evidence to find (categories 1-4), evidence ids split and cleaned. */
function questionsOf(item) {
  return item.qa
    .filter((qa) => qa.category >= 1 && qa.category <= 4)
    .map((qa) => ({
      question: qa.question,
      category: qa.category,
      evidence: new Set((qa.evidence ?? []).flatMap((e) => String(e).split(/[;,\s]+/)).filter(Boolean)),
    }))
    .filter((qa) => qa.evidence.size > 0);
}

const tokens = (text) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** Plain Okapi BM25 over one conversation's turns; returns the top-k turn ids of a query. */
function bm25(turns) {
  const docs = turns.map((t) => {
    const tf = new Map();
    const list = tokens(t.content);
    for (const token of list) tf.set(token, (tf.get(token) ?? 0) + 1);
    return { id: t.diaId, tf, length: list.length };
  });
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
  const df = new Map();
  for (const d of docs) for (const token of d.tf.keys()) df.set(token, (df.get(token) ?? 0) + 1);
  const idf = (t) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  return (query, k) => {
    const terms = [...new Set(tokens(query))];
    return docs
      .map((d) => {
        let score = 0;
        for (const t of terms) {
          const f = d.tf.get(t);
          if (f) score += (idf(t) * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / avg));
        }
        return { id: d.id, score };
      })
      .filter((d) => d.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((d) => d.id);
  };
}

const recall = (found, evidence) => [...evidence].filter((id) => found.includes(id)).length / evidence.size;

async function until(check, { timeoutMs, intervalMs }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

module.exports = {
  id: 'memory-recall',
  title: 'Memory recall@10 on LoCoMo-format conversations (MEMORY_EVAL_DATA)',
  target: 'recall@10 >= 1.35x the BM25 reference; search p95 <= 30 ms; backlog >= 80 memories/s per core',
  async setup(ctx) {
    if (!DATA || !fs.existsSync(DATA)) {
      throw new Error(
        `no evaluation data${DATA ? ` at ${DATA}` : ''}: set MEMORY_EVAL_DATA to a LoCoMo-format file (see docs/memory-search.md)`,
      );
    }
    const data = JSON.parse(fs.readFileSync(DATA, 'utf8'));
    // An API key, not an access token: adding and embedding thousands of turns on a busy machine
    // outlasts a token's lifetime.
    const { accessToken: login } = await loggedInUser(ctx);
    const key = await ctx.api(ctx.url, login).post('/api/v1/auth/api-keys', {
      name: 'memory-recall',
      scopes: ['agents:read', 'agents:write', 'memory:read', 'memory:write'],
    });
    if (key.status !== 201) throw new Error(`create key: ${key.status} ${key.text}`);
    const accessToken = key.body.key;
    const client = ctx.api(ctx.url, accessToken);
    const conversations = [];
    for (const [n, item] of data.entries()) {
      const agent = await client.post('/api/v1/agents', {
        name: `recall ${item.sample_id ?? n}`,
        type: 'assistant',
        memory_types: ['semantic', 'episodic'],
      });
      if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${agent.text}`);
      conversations.push({ agentId: agent.body.id, turns: turnsOf(item.conversation), questions: questionsOf(item) });
    }
    return { accessToken, client, conversations };
  },
  async run(ctx, state) {
    const { accessToken, client, conversations } = state;
    // Adds: each conversation's turns in order (creation order is the conversation's), the
    // conversations side by side.
    const byMemoryId = new Map();
    const started = Date.now();
    const added = await Promise.all(
      conversations.map(async (c) => {
        const figures = await latencies({
          total: c.turns.length,
          concurrency: 1,
          request: (i) =>
            post(ctx, accessToken, '/memory', {
              agent_id: c.agentId,
              memory_type: 'episodic',
              content: c.turns[i].content,
              metadata: { dia_id: c.turns[i].diaId, session: c.turns[i].session, date: c.turns[i].date },
            }),
        });
        if (figures.errors) throw new Error(`adding turns: ${figures.errors} errors`);
        return { c, figures };
      }),
    );
    const addSeconds = (Date.now() - started) / 1000;
    const totalTurns = conversations.reduce((sum, c) => sum + c.turns.length, 0);
    const addP95 = Math.max(...added.map((a) => a.figures.p95));
    ctx.log(`added ${totalTurns} turns in ${addSeconds.toFixed(1)} s`);

    // The backlog: every item has a vector of the current embedder when its `embedding.provider` is set.
    const pendingCount = async () => {
      let pending = 0;
      for (const c of conversations) {
        for (let page = 1; ; page++) {
          const res = await client.get(`/api/v1/memory?agent_id=${c.agentId}&per_page=100&page=${page}`);
          if (res.status !== 200) throw new Error(`list memory: ${res.status}`);
          for (const item of res.body.items) {
            if (!item.embedding?.provider) pending++;
            byMemoryId.set(item.id, item.metadata.dia_id);
          }
          if (res.body.items.length < 100) break;
        }
      }
      return pending;
    };
    const drained = await until(async () => (await pendingCount()) === 0, {
      timeoutMs: 20 * 60_000,
      intervalMs: 2_000,
    });
    const drainSeconds = (Date.now() - started) / 1000;
    if (!drained) throw new Error('the embedding backlog did not drain within 20 minutes');
    const sample = await client.get(`/api/v1/memory?agent_id=${conversations[0].agentId}&per_page=1`);
    const provider = sample.body.items[0]?.embedding?.provider ?? '';
    ctx.log(`backlog drained ${drainSeconds.toFixed(1)} s after the first add (${provider})`);

    // Recall, platform and BM25, question by question.
    const sums = { platform: 0, bm25: 0, n: 0 };
    const byCategory = {};
    const searchTimes = [];
    for (const c of conversations) {
      const reference = bm25(c.turns);
      for (const qa of c.questions) {
        const t0 = process.hrtime.bigint();
        const res = await client.post('/api/v1/memory/search', { agent_id: c.agentId, query: qa.question, top_k: K });
        searchTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (res.status !== 200) throw new Error(`search: ${res.status} ${res.text}`);
        const found = res.body.results.map((r) => r.metadata?.dia_id ?? byMemoryId.get(r.id));
        const p = recall(found, qa.evidence);
        const b = recall(reference(qa.question, K), qa.evidence);
        sums.platform += p;
        sums.bm25 += b;
        sums.n++;
        const cat = (byCategory[qa.category] ??= { platform: 0, bm25: 0, n: 0 });
        cat.platform += p;
        cat.bm25 += b;
        cat.n++;
      }
    }
    searchTimes.sort((a, b) => a - b);
    const pct = (p) =>
      Math.round(searchTimes[Math.min(searchTimes.length - 1, Math.floor(p * searchTimes.length))] * 10) / 10;
    const platform = sums.platform / sums.n;
    const reference = sums.bm25 / sums.n;
    const categories = Object.entries(byCategory)
      .map(([k, v]) => `c${k} ${(v.platform / v.n).toFixed(3)}/${(v.bm25 / v.n).toFixed(3)}`)
      .join(', ');
    ctx.log(`recall@${K}: platform ${platform.toFixed(4)}, BM25 ${reference.toFixed(4)} (${categories})`);

    // Search latency at the conversations' own size (LoCoMo has 400-700 turns each), repeated
    // questions excluded from the cache's favour by cycling all of them once more.
    const all = conversations.flatMap((c) => c.questions.map((qa) => ({ agentId: c.agentId, query: qa.question })));
    const again = await latencies({
      total: all.length,
      concurrency: 4,
      request: (i) =>
        post(ctx, accessToken, '/memory/search', { agent_id: all[i].agentId, query: `${all[i].query} ?`, top_k: K }),
    });
    // The bound for one add when the backlog is empty: add, then poll the item until it has its vector.
    const lags = [];
    for (let i = 0; i < 20; i++) {
      const t0 = Date.now();
      const res = await client.post('/api/v1/memory', {
        agent_id: conversations[0].agentId,
        content: `A late note number ${i} about the weekend trip.`,
      });
      if (res.status !== 201) throw new Error(`add: ${res.status}`);
      await until(
        async () => (await client.get(`/api/v1/memory/${res.body.id}`)).body.embedding?.provider === provider,
        {
          timeoutMs: 60_000,
          intervalMs: 10,
        },
      );
      lags.push(Date.now() - t0);
    }
    lags.sort((a, b) => a - b);
    return {
      rows: [
        {
          label: `recall@${K} platform (${provider}), ${sums.n} questions`,
          note: `${platform.toFixed(4)} = ${(platform / reference).toFixed(3)}x BM25; by category platform/BM25: ${categories}`,
        },
        { label: `recall@${K} BM25 reference`, note: reference.toFixed(4) },
        {
          label: `memory add, ${totalTurns} turns, ${conversations.length} agents one turn at a time`,
          rps: Math.round(totalTurns / addSeconds),
          p95: addP95,
        },
        {
          label: 'embedding backlog drained',
          rps: Math.round(totalTurns / drainSeconds),
          note: `${drainSeconds.toFixed(1)} s after the first add (memories/s in req/s)`,
        },
        {
          label: 'one add until its vector is stored (backlog empty, 20 adds)',
          p50: lags[10],
          p95: lags[19],
          note: 'ms, polled every 10 ms',
        },
        {
          label: 'search, first pass (each question once)',
          p50: pct(0.5),
          p95: pct(0.95),
          p99: pct(0.99),
          requests: searchTimes.length,
        },
        { label: 'search, new queries, concurrency 4', ...again },
      ],
    };
  },
};
