import { startTenantPlatform, suiteFixture, waitFor } from '@agentplatform/testing';
import { memoryHelpers, newTenant } from './support';

/** Memory items through the gateway: hybrid search with filters, ranking, tenants and replicas. */
describe('memory through the gateway', () => {
  const suite = suiteFixture(() => startTenantPlatform({ services: ['identity', 'agent-memory'] }, 'memory-search'));
  const { newAgent, add, startReplica, search } = memoryHelpers(suite);

  describe('search', () => {
    let agentId: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      agentId = await newAgent(['semantic', 'episodic', 'procedural']);
      const items: Array<[string, string, Record<string, unknown>, string?]> = [
        [
          'refund',
          'Our refund policy allows returns within 30 days of purchase.',
          { category: 'billing', priority: 3, tags: ['refund', 'policy'], source: 'faq', region: { code: 'EU' } },
        ],
        [
          'digital',
          'Refunds for digital downloads are not possible once the file was opened.',
          { category: 'billing', priority: 1, tags: ['refund'], source: 'legal' },
        ],
        [
          'phone',
          'Enterprise customers get phone support around the clock.',
          { category: 'support', priority: 5, tags: ['enterprise'], source: 'faq' },
        ],
        [
          'password',
          'Passwords must be changed every 90 days for compliance.',
          { category: 'security', priority: 4, tags: ['password'], source: 'policy-doc' },
        ],
        [
          'ratelimit',
          'The API rate limit on the pro plan is 600 requests per minute.',
          { category: 'api', priority: 2, tags: ['limits'], source: 'docs' },
        ],
        [
          'invoice',
          'Invoices are emailed on the first day of every month.',
          { category: 'billing', priority: 2, tags: ['invoice'], source: 'faq', updated: '2026-03-01' },
        ],
        [
          'darkmode',
          'The mobile app supports dark mode since version 3.2.',
          { category: 'product', priority: 1, tags: ['mobile'], source: 'release-notes', updated: '2026-05-10' },
        ],
        [
          'shipping',
          'Shipping to Canada takes five to seven business days.',
          { category: 'logistics', priority: 2, tags: ['shipping'], source: 'faq' },
        ],
        [
          'twofactor',
          'Two-factor authentication can be enabled in the security settings.',
          { category: 'security', priority: 3, tags: ['2fa'], source: 'docs' },
        ],
        [
          'backup',
          'Customer data is backed up nightly to a second region.',
          { category: 'security', priority: 2, tags: ['backup'], source: 'docs' },
        ],
        [
          'ceo',
          'Maria Lopez has been the chief executive officer since 2021.',
          { category: 'company', priority: 1, tags: [], source: 'wiki' },
        ],
        [
          'onboarding',
          'To onboard a new employee: create the account, assign a laptop, book the intro call.',
          { category: 'hr', priority: 2, tags: ['howto'], source: 'wiki' },
          'procedural',
        ],
      ];
      for (const [key, content, metadata, type] of items)
        ids[key] = (await add(agentId, content, metadata, type ?? 'semantic')).id;
      // Some checks below compare the scores of two searches: a vector stored by the backlog
      // between them would move a score (it failed that way once on a slow machine).
      await waitFor(
        async () => {
          const res = await suite.http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`);
          const listed = res.body.items as Array<{ embedding: { dimension: number } }>;
          return listed.length === items.length && listed.every((item) => item.embedding.dimension > 0);
        },
        { timeoutMs: 60_000, what: 'every searched memory to have its vector' },
      );
    });

    it.each([
      ['What is the refund policy for returns?', 'refund'],
      ['Can I get a refund for a digital download?', 'digital'],
      ['phone support for enterprise customers', 'phone'],
      ['how often do passwords have to be changed', 'password'],
      ['rate limit of the pro plan', 'ratelimit'],
      ['when are invoices emailed', 'invoice'],
      ['does the mobile app have dark mode', 'darkmode'],
      ['how long does shiping to canada take', 'shipping'],
      ['enable two factor authentification', 'twofactor'],
      ['how is customer data backed up', 'backup'],
      ['who is the chief executive', 'ceo'],
      ['steps to onboard a new employee', 'onboarding'],
    ])('ranks the relevant item first for %j', async (query, expected) => {
      const results = await search({ agent_id: agentId, query, top_k: 5 });
      expect(results[0].id).toBe(ids[expected]);
      for (const r of results) expect(r.score).toBeGreaterThanOrEqual(0);
      for (const r of results) expect(r.score).toBeLessThanOrEqual(1);
      const scores = results.map((r) => r.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      // The best match stands clearly above the rest.
      expect(results[0].score - (results[1]?.score ?? 0)).toBeGreaterThan(0.05);
    });

    it('returns SPEC fields, honours top_k and memory_type', async () => {
      const results = await search({ agent_id: agentId, query: 'billing refund invoice policy', top_k: 2 });
      expect(results).toHaveLength(2);
      expect(Object.keys(results[0]).sort()).toEqual([
        'content',
        'created_at',
        'id',
        'memory_type',
        'metadata',
        'score',
      ]);
      const procedural = await search({
        agent_id: agentId,
        query: 'employee account laptop refund',
        memory_type: 'procedural',
      });
      expect(procedural.map((r) => r.id)).toEqual([ids.onboarding]);
    });

    it.each([
      ['eq (shorthand)', { category: 'billing' }, ['refund', 'digital', 'invoice']],
      ['eq', { category: { eq: 'security' } }, ['password', 'twofactor', 'backup']],
      ['ne', { category: { ne: 'billing' }, source: 'faq' }, ['phone', 'shipping']],
      ['in', { source: { in: ['legal', 'wiki'] } }, ['digital', 'ceo', 'onboarding']],
      ['gt', { priority: { gt: 3 } }, ['phone', 'password']],
      ['gte and lte', { priority: { gte: 3, lte: 4 } }, ['refund', 'password', 'twofactor']],
      ['lt', { priority: { lt: 2 } }, ['digital', 'darkmode', 'ceo']],
      ['string range', { updated: { gte: '2026-04-01' } }, ['darkmode']],
      ['contains in an array', { tags: { contains: 'refund' } }, ['refund', 'digital']],
      ['contains in a string', { source: { contains: 'NOTES' } }, ['darkmode']],
      ['nested path', { 'region.code': 'EU' }, ['refund']],
    ])('filters on metadata with %s', async (_label, filters, expected) => {
      const results = await search({
        agent_id: agentId,
        query: 'policy refund support data plan',
        top_k: 100,
        filters,
      });
      expect(results.map((r) => r.id).sort()).toEqual(expected.map((k) => ids[k]).sort());
    });

    it('drops results under min_score', async () => {
      const all = await search({ agent_id: agentId, query: 'refund policy returns', top_k: 100 });
      expect(all.length).toBeGreaterThan(3);
      const cut = all[2].score;
      const kept = await search({ agent_id: agentId, query: 'refund policy returns', top_k: 100, min_score: cut });
      expect(kept.map((r) => r.id)).toEqual(all.filter((r) => r.score >= cut).map((r) => r.id));
      expect(kept.every((r) => r.score >= cut)).toBe(true);
      expect(await search({ agent_id: agentId, query: 'refund policy returns', min_score: 1 })).toEqual([]);
    });

    it.each([
      ['top_k 0', { top_k: 0 }, 'top_k'],
      ['top_k 101', { top_k: 101 }, 'top_k'],
      ['top_k not an integer', { top_k: 2.5 }, 'top_k'],
      ['min_score above 1', { min_score: 1.5 }, 'min_score'],
      ['empty query', { query: '' }, 'query'],
      ['unknown memory type', { memory_type: 'dream' }, 'memory_type'],
      ['unknown operator', { filters: { priority: { between: [1, 2] } } }, 'filters.priority.between'],
      ['in without an array', { filters: { source: { in: 'faq' } } }, 'filters.source.in'],
      ['gt with an object', { filters: { priority: { gt: { x: 1 } } } }, 'filters.priority.gt'],
    ])('refuses %s with a 400 naming the field', async (_label, patch, field) => {
      const res = await suite.http.post('/api/v1/memory/search', { agent_id: agentId, query: 'refund', ...patch });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    });

    it('never serves an agent cached for its tenant to another tenant', async () => {
      // The version check reads the agent by id alone and compares the tenant in code.
      expect((await search({ agent_id: agentId, query: 'refund policy' })).length).toBeGreaterThan(0);
      const other = await newTenant(suite.platform);
      const res = await other.http.post('/api/v1/memory/search', { agent_id: agentId, query: 'refund policy' });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    });

    it('sees writes made through another replica (the cache is checked against the agent version)', async () => {
      const { client: other, stop } = await startReplica();
      try {
        const query = { tenantId: suite.tenantId, agentId, query: 'penguins in the zoo', topK: 3 };
        expect((await other.searchMemory(query)).results.map((r) => r.content)).not.toContain(
          'The zoo has twelve penguins.',
        );
        const added = await add(agentId, 'The zoo has twelve penguins.');
        expect((await other.searchMemory(query)).results[0].id).toBe(added.id);
        await other.deleteMemory({ tenantId: suite.tenantId, memoryId: added.id });
        expect((await search({ agent_id: agentId, query: 'penguins in the zoo' })).map((r) => r.id)).not.toContain(
          added.id,
        );
        const viaReplica = await other.addMemory({
          tenantId: suite.tenantId,
          agentId,
          content: 'Penguins are fed at three.',
          metadata: {},
        });
        expect((await search({ agent_id: agentId, query: 'when are penguins fed' }))[0].id).toBe(viaReplica.id);
        await suite.http.delete(`/api/v1/memory/${viaReplica.id}`);
      } finally {
        await stop();
      }
    });
  });
});
