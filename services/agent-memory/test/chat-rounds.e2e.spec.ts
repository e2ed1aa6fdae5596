import { suiteFixture } from '@agentplatform/testing';
import { startWithFakeLlm } from './fake-openai';
import { drainTo, newTenant, parseSse, type Http } from './support';

interface LedgerLine {
  type: string;
  amount: number;
  balance_after: number;
}

/** The turn deadline of this suite's agent-memory: far above a few quick rounds, far below the slow model. */
const TURN_DEADLINE_MS = 6_000;
const SLOW_MODEL_MS = 30_000;

/** Every model round reports 1,000 tokens: each round the turn runs costs one more credit. */
const ROUND_USAGE = { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 };

const searchCall = { tool_calls: [{ name: 'memory_search', arguments: { query: 'anything about refunds?' } }] };

/**
 * Chats pay as they go (docs/design.md section 5): each model round reserves before it runs, a turn
 * whose next round cannot be reserved ends with `insufficient_credits`, and a turn has a total
 * deadline. Through the gateway, agent-memory and identity as real processes, with an
 * OpenAI-compatible model the test scripts (it keeps calling a tool, so the turn keeps going).
 */
describe('chat rounds reserve as they go', () => {
  const suite = suiteFixture(() =>
    startWithFakeLlm(
      { services: ['identity', 'agent-memory'] },
      {
        LLM_MAX_RETRIES: '0',
        LLM_TIMEOUT_MS: String(SLOW_MODEL_MS * 2),
        CHAT_TURN_DEADLINE_MS: String(TURN_DEADLINE_MS),
        EMBEDDINGS_MODEL_DIR: 'none',
      },
    ),
  );

  beforeEach(() => {
    suite.fake.usage = ROUND_USAGE;
  });

  afterEach(() => {
    suite.fake.script.length = 0;
    suite.fake.delays.length = 0;
  });

  /**
   * A tenant whose balance is `balance`, with an agent that may search its memory for 8 rounds.
   * max_tokens 200: a round's prompt (well under 800 tokens here) plus its reply limit is at most
   * one credit on top of what the turn used so far, so a balance of k credits covers exactly k rounds.
   */
  async function tenantWith(balance: number): Promise<{ http: Http; agentId: string }> {
    const { http, user } = await newTenant(suite.platform);
    await drainTo(suite.platform, user.tenantId, balance);
    const agent = await http.post('/api/v1/agents', {
      name: 'Researcher',
      type: 'research',
      memory_types: ['semantic'],
      config: { max_tokens: 200, max_steps: 8, tools: [{ type: 'memory_search' }] },
    });
    expect(agent.status).toBe(201);
    return { http, agentId: agent.body.id };
  }

  async function ledger(http: Http): Promise<{ balance: number; lines: LedgerLine[] }> {
    const res = await http.get('/api/v1/billing/credits?limit=100');
    expect(res.status).toBe(200);
    return { balance: res.body.balance, lines: res.body.ledger };
  }

  function expectConsistent({ balance, lines }: { balance: number; lines: LedgerLine[] }): void {
    expect(lines.every((l) => l.balance_after >= 0)).toBe(true);
    expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(balance);
  }

  it('stops a turn whose next round the balance cannot cover, and charges exactly the rounds it ran', async () => {
    const { http, agentId } = await tenantWith(3);
    suite.fake.script.push(...Array.from({ length: 9 }, () => searchCall));
    const asked = suite.fake.chats().length;

    const res = await http.post(`/api/v1/agents/${agentId}/chat`, { message: 'Keep searching until you know.' });
    expect(res.status).toBe(200);
    expect(res.body.stop_reason).toBe('insufficient_credits');
    // Three rounds ran (each called the tool once); the fourth was never asked.
    expect(suite.fake.chats().length - asked).toBe(3);
    expect(res.body.steps).toHaveLength(3);
    expect(res.body.usage.total_tokens).toBe(3000);
    expect(res.body.credits_used).toBe(3);

    const after = await ledger(http);
    expect(after.balance).toBe(0);
    expectConsistent(after);
    // One reservation per round that needed more, each settled: nothing left open.
    const turn = after.lines.filter((l) => l.type !== 'grant' && l.type !== 'charge');
    expect(turn.filter((l) => l.type === 'reserve')).toHaveLength(3);
    expect(turn.filter((l) => l.type === 'settle')).toHaveLength(3);

    // With nothing left, the next turn is refused before it starts.
    const refused = await http.post(`/api/v1/agents/${agentId}/chat`, { message: 'Once more?' });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe('insufficient_credits');
  });

  it("says so in a stream's final event too", async () => {
    const { http, agentId } = await tenantWith(2);
    suite.fake.script.push(...Array.from({ length: 9 }, () => searchCall));

    const res = await http.post(
      `/api/v1/agents/${agentId}/chat`,
      { message: 'Search, streamed.' },
      { headers: { accept: 'text/event-stream' } },
    );
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.filter((e) => e.event === 'step')).toHaveLength(2);
    const done = events.find((e) => e.event === 'done')!.data;
    expect(done).toMatchObject({ stop_reason: 'insufficient_credits', credits_used: 2 });

    const after = await ledger(http);
    expect(after.balance).toBe(0);
    expectConsistent(after);
  });

  it('answers with stop_reason "stop" when the model answers within the balance', async () => {
    const { http, agentId } = await tenantWith(5);
    suite.fake.script.push(searchCall, { content: 'Refunds take five days.' });

    const res = await http.post(`/api/v1/agents/${agentId}/chat`, { message: 'How long do refunds take?' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ stop_reason: 'stop', content: 'Refunds take five days.', credits_used: 2 });
    const after = await ledger(http);
    expect(after.balance).toBe(3);
    expectConsistent(after);
  });

  it('ends a turn that outlives CHAT_TURN_DEADLINE_MS with a clear error, charging only the rounds that finished', async () => {
    const { http, agentId } = await tenantWith(50);
    // The first round calls the tool at once; the second never answers in time.
    suite.fake.script.push(searchCall, searchCall);
    suite.fake.delays.push(0, SLOW_MODEL_MS);

    const started = Date.now();
    const res = await http.post(`/api/v1/agents/${agentId}/chat`, { message: 'Think hard.' });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('service_unavailable');
    expect(res.body.message).toContain(`limit of ${TURN_DEADLINE_MS} ms`);
    expect(elapsed).toBeGreaterThanOrEqual(TURN_DEADLINE_MS - 500);
    expect(elapsed).toBeLessThan(SLOW_MODEL_MS);

    // The finished round (1,000 tokens: one credit) is charged; the interrupted one's reservation
    // is given back: no reservation stays open to expire later.
    const after = await ledger(http);
    expect(after.balance).toBe(49);
    expectConsistent(after);
    const turn = after.lines.filter((l) => ['reserve', 'settle', 'release'].includes(l.type));
    expect(turn.filter((l) => l.type === 'reserve')).toHaveLength(2);
    expect(turn.filter((l) => l.type !== 'reserve')).toHaveLength(2);
  });
});
