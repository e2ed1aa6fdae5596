import { suiteFixture } from '@agentplatform/testing';
import { startWithFakeLlm } from './fake-openai';
import { drainTo, newTenant, type Http } from './support';

interface LedgerLine {
  type: string;
  amount: number;
  balance_after: number;
}

/**
 * Chats reserve credits before they start and settle after (docs/design.md section 5), through the
 * gateway, agent-memory and identity as real processes, with an OpenAI-compatible provider the
 * test controls.
 */
describe('chat credits: reserve, settle, release', () => {
  const suite = suiteFixture(() =>
    startWithFakeLlm({ services: ['identity', 'agent-memory'] }, { LLM_MAX_RETRIES: '0' }),
  );

  /** A tenant whose balance is `balance`, with an agent whose chats reserve one credit. */
  async function tenantWith(balance: number): Promise<{ http: Http; tenantId: string; agentId: string }> {
    const { http, user } = await newTenant(suite.platform);
    await drainTo(suite.platform, user.tenantId, balance);
    // max_tokens 200: a short prompt plus 200 tokens is an estimate of one credit.
    const agent = await http.post('/api/v1/agents', { name: 'Cost', type: 'assistant', config: { max_tokens: 200 } });
    expect(agent.status).toBe(201);
    return { http, tenantId: user.tenantId, agentId: agent.body.id };
  }

  async function ledger(http: Http): Promise<{ balance: number; lines: LedgerLine[] }> {
    const res = await http.get('/api/v1/billing/credits?limit=100');
    expect(res.status).toBe(200);
    return { balance: res.body.balance, lines: res.body.ledger };
  }

  it('runs exactly one of 10 parallel chats at a balance of 1; the rest are 402 and nothing goes below zero', async () => {
    const { http, agentId } = await tenantWith(1);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => http.post(`/api/v1/agents/${agentId}/chat`, { message: `Question ${i}?` })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(402)]);
    for (const refused of answers.filter((a) => a.status === 402)) {
      expect(refused.body.error).toBe('insufficient_credits');
    }

    const { balance, lines } = await ledger(http);
    expect(balance).toBe(0);
    // Newest first: the chat's settle, its reservation, the drain, the welcome grant.
    expect(lines.map((l) => l.type)).toEqual(['settle', 'reserve', 'charge', 'grant']);
    expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(balance);
    expect(lines.every((l) => l.balance_after >= 0)).toBe(true);
    // Only the chat that ran was stored.
    const sessions = await http.get(`/api/v1/agents/${agentId}/sessions`);
    expect(sessions.body.total).toBe(1);
  });

  it("keeps each tenant's balance exact when their parallel chats' credit calls go to identity together", async () => {
    const poor = await tenantWith(1);
    const rich = await tenantWith(900);
    // Interleaved, so reserves and settles of both tenants wait for identity together.
    const chats = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? poor : rich)).map((t, i) =>
      t.http.post(`/api/v1/agents/${t.agentId}/chat`, { message: `Question ${i}?` }).then((res) => ({ t, res })),
    );
    const answers = await Promise.all(chats);
    const of = (t: typeof poor) => answers.filter((a) => a.t === t).map((a) => a.res);

    // The poor tenant's balance covers one one-credit reservation: its others are refused, alone.
    expect(
      of(poor)
        .map((r) => r.status)
        .sort(),
    ).toEqual([200, ...Array(7).fill(402)]);
    expect(of(rich).map((r) => r.status)).toEqual(Array(8).fill(200));

    for (const t of [poor, rich]) {
      const served = of(t).filter((r) => r.status === 200);
      const { balance, lines } = await ledger(t.http);
      const types = lines.map((l) => l.type);
      // One reservation and one settle per chat served, nothing for a refused one.
      expect(types.filter((type) => type === 'reserve')).toHaveLength(served.length);
      expect(types.filter((type) => type === 'settle')).toHaveLength(served.length);
      const spent = served.reduce((sum, r) => sum + (r.body.credits_used as number), 0);
      // Each chat costs 3 (FAKE_USAGE) of its 1 reserved: the poor tenant's overrun stops at zero.
      expect(balance).toBe(t === poor ? 0 : 900 - spent);
      expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(balance);
      expect(lines.every((l) => l.balance_after >= 0)).toBe(true);
    }
  });

  it('releases the reservation of a chat whose provider fails, so nothing is charged', async () => {
    const { http, agentId } = await tenantWith(5);
    suite.fake.failures.push({ status: 500 });
    const failed = await http.post(`/api/v1/agents/${agentId}/chat`, { message: 'Will this fail?' });
    expect(failed.status).toBe(503);

    const { balance, lines } = await ledger(http);
    expect(balance).toBe(5);
    const [release, reserve] = lines;
    expect(reserve).toMatchObject({ type: 'reserve', amount: -1, balance_after: 4 });
    expect(release).toMatchObject({ type: 'release', amount: 1, balance_after: 5 });

    // The credits it held are there for the next chat.
    const ok = await http.post(`/api/v1/agents/${agentId}/chat`, { message: 'And now?' });
    expect(ok.status).toBe(200);
  });
});
