import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startPlatform, waitFor, type Platform } from '@agentplatform/testing';
import { newTenant, type Http } from './support';

/** deploy/local/model.js: the same fetch as `.ci/run` and `npm start` (cached after the first). */
const model = require(path.resolve(__dirname, '../../../deploy/local/model.js')) as {
  fetchModel(options: { quiet: boolean }): Promise<string>;
};

/** A query the model embeds at its longest (cut to 128 word pieces): tens of ms of one core. */
const longQuery = (n: number) => `${n} ${'where did the customer say the broken blender was delivered '.repeat(20)}`;

/**
 * The local model answers one query at a time; when queries come faster than it embeds them, a
 * search or a chat whose query needs the model is refused before any of its work (503 with
 * Retry-After), instead of waiting behind the queue (docs/memory-search.md, "Queries"); in its
 * first minutes of use (15 s here) such queries rank lexically instead. Here the bound is 1 ms,
 * so the queue of a stream of long searches keeps the model behind past the grace.
 */
describe('the model refuses queries it cannot embed in time', () => {
  let platform: Platform;
  let http: Http;
  let agentId: string;
  /** Another tenant, with an agent of its own, that searches one query at a time. */
  let quiet: { http: Http; agentId: string };
  const log = () => readFileSync(platform.service('agent-memory').logFile, 'utf8');

  beforeAll(async () => {
    await model.fetchModel({ quiet: true });
    platform = await startPlatform({
      services: ['identity', 'agent-memory'],
      serviceEnv: {
        identity: { DEFAULT_PLAN: 'enterprise' },
        // The bursts here are meant for the model's queue, not for the gateway's bound before it.
        gateway: { AGENT_MEMORY_MAX_IN_FLIGHT: '1000' },
        'agent-memory': { LOG_LEVEL: 'info', QUERY_EMBEDDING_MAX_WAIT_MS: '1', QUERY_EMBEDDING_WARM_UP_MS: '15000' },
      },
    });
    http = (await newTenant(platform)).http;
    const agent = await http.post('/api/v1/agents', { name: 'Busy model', type: 'support' });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    expect(
      (await http.post('/api/v1/memory', { agent_id: agentId, content: 'The blender went to Leeds.' })).status,
    ).toBe(201);
    const other = (await newTenant(platform)).http;
    const otherAgent = await other.post('/api/v1/agents', { name: 'Quiet tenant', type: 'support' });
    expect(otherAgent.status).toBe(201);
    quiet = { http: other, agentId: otherAgent.body.id };
    await waitFor(() => /embedding model loaded/.test(log()) || undefined, {
      what: 'the model to load',
      timeoutMs: 120_000,
    });
  }, 300_000);

  afterAll(() => platform?.stop());

  /** 40 streams of distinct long searches (below the gateway's bound in flight) keep the model's queue long. */
  async function pressure(until: () => boolean, onAnswer: (res: Answer) => void): Promise<void> {
    const searching = async () => {
      while (until()) {
        onAnswer(await http.post('/api/v1/memory/search', { agent_id: agentId, query: longQuery(n++), top_k: 3 }));
      }
    };
    await Promise.all(Array.from({ length: 40 }, searching));
  }
  let n = 0;

  it('ranks lexically, refusing nothing, while the model warms; then answers 503 with Retry-After to searches and chats while behind, having done nothing', async () => {
    // Warming (the first 15 s from the first query): 10 s of pressure, five times the grace.
    const warm = Date.now() + 15_000;
    const early: number[] = [];
    const phase = Date.now() + 10_000;
    await pressure(
      () => Date.now() < phase,
      (res) => early.push(res.status),
    );
    expect(early.length).toBeGreaterThan(40);
    expect(early.filter((status) => status !== 200)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, warm - Date.now())));

    const answered: number[] = [];
    const refused: Answer[] = [];
    let chat: Answer | undefined;
    let chatSession = '';
    const deadline = Date.now() + 30_000;
    const going = () => !chat && Date.now() < deadline;
    // Once searches are refused, a chat is sent until one is refused too.
    const chatting = async () => {
      while (going()) {
        if (refused.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        const session = `probe-${n++}`;
        const res = await http.post(`/api/v1/agents/${agentId}/chat`, { message: longQuery(n++), session_id: session });
        if (res.status === 503) {
          chat = res;
          chatSession = session;
        } else expect(res.status).toBe(200);
      }
    };
    await Promise.all([
      pressure(going, (res) => (res.status === 503 ? refused.push(res) : answered.push(res.status))),
      chatting(),
    ]);
    expect(answered.every((status) => status === 200)).toBe(true);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(chat).toBeDefined();
    for (const res of [...refused, chat!]) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body).toMatchObject({ error: 'service_unavailable', retry_after: 1 });
      expect(res.body.message).toMatch(/embedding model is at capacity and did not start this request/);
    }
    // The operator is told once per episode, not once per refusal.
    expect(log().match(/embedding model behind: refusing/g)).toHaveLength(1);
    // The refused chat did nothing: its session was never opened (and so holds no message).
    const sessions = await http.get(`/api/v1/agents/${agentId}/sessions?per_page=100`);
    expect(sessions.status).toBe(200);
    expect(sessions.body.sessions.map((s: { id: string }) => s.id)).not.toContain(chatSession);
    expect((await http.get(`/api/v1/agents/${agentId}/sessions/${chatSession}/messages`)).status).toBe(404);

    // Once the model has caught up, a new query is served.
    await waitFor(
      async () => {
        const res = await http.post('/api/v1/memory/search', { agent_id: agentId, query: 'blender city', top_k: 3 });
        return res.status === 200 ? res : undefined;
      },
      { what: 'a search served after the queue drained', timeoutMs: 60_000 },
    );
  }, 180_000);

  it("refuses only the tenant whose queries keep the model behind: another tenant's searches are served meanwhile", async () => {
    const refused: number[] = [];
    const served: number[] = [];
    const quietAnswers: Array<{ status: number; ms: number; duringRefusals: boolean }> = [];
    let stop = Date.now() + 60_000;
    const going = () => Date.now() < stop;
    const quietSearches = async () => {
      while (going()) {
        const started = Date.now();
        const res = await quiet.http.post('/api/v1/memory/search', {
          agent_id: quiet.agentId,
          query: longQuery(n++),
          top_k: 3,
        });
        // Refusals of the flooding tenant since this search started: it was sent while they went on.
        const duringRefusals = refused.some((at) => at >= started);
        quietAnswers.push({ status: res.status, ms: Date.now() - started, duringRefusals });
      }
    };
    await Promise.all([
      pressure(going, (res) => {
        if (res.status === 503) {
          // Once refusals begin, 10 s more of them.
          if (refused.length === 0) stop = Math.min(stop, Date.now() + 10_000);
          refused.push(Date.now());
        } else served.push(res.status);
      }),
      quietSearches(),
    ]);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.every((status) => status === 200)).toBe(true);
    expect(quietAnswers.filter((a) => a.status !== 200)).toEqual([]);
    expect(quietAnswers.filter((a) => a.duringRefusals).length).toBeGreaterThanOrEqual(3);
  }, 120_000);
});

type Answer = { status: number; headers: Headers; body: any };
