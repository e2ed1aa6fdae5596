import { depsWithAgent } from '../testing/in-memory.js';
import { deleteAgent } from './manage-agents.js';
import { addMemories } from './add-memories.js';

describe('batch adds', () => {
  const batch = (deps: Parameters<typeof addMemories>[0], agentId: string, items: Array<Record<string, unknown>>) =>
    addMemories(deps, {
      tenantId: 't1',
      agentId,
      items: items as Parameters<typeof addMemories>[1]['items'],
      plan: 'free',
    });

  it('stores every item with one insert and one version bump, answering them in order', async () => {
    const { deps, fakes, agentId, inserts, bumps } = await depsWithAgent();
    const items = await batch(
      deps,
      agentId,
      Array.from({ length: 50 }, (_, i) => ({ content: ` fact ${i} `, metadata: { n: i } })),
    );
    expect(items.map((item) => [item.content, item.metadata.n, item.memoryType])).toEqual(
      Array.from({ length: 50 }, (_, i) => [`fact ${i}`, i, 'semantic']),
    );
    expect([...items.map((item) => item.id)].sort()).toEqual(items.map((item) => item.id));
    expect(inserts).toHaveBeenCalledTimes(1);
    expect(bumps).toHaveBeenCalledTimes(1);
    expect(fakes.index.applied.map((a) => [a.version, a.upsert.length])).toEqual([[1, 50]]);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(50);
  });

  it('checks every item before storing any, naming each wrong field by its place', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    await expect(
      batch(deps, agentId, [{ content: 'fine' }, { content: '   ' }, { content: 'x', memoryType: 'dream' }]),
    ).rejects.toMatchObject({
      code: 'validation_error',
      details: [
        expect.objectContaining({ field: 'items[1].content' }),
        expect.objectContaining({ field: 'items[2].memory_type' }),
      ],
    });
    await expect(batch(deps, agentId, [])).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'items' })],
    });
    await expect(
      batch(
        deps,
        agentId,
        Array.from({ length: 101 }, () => ({ content: 'x' })),
      ),
    ).rejects.toMatchObject({ details: [expect.objectContaining({ field: 'items' })] });
    expect(fakes.memories.byId.size).toBe(0);
    expect(fakes.quotas.counted(agentId, 'memories') ?? 0).toBe(0);
  });

  it('refuses the whole batch when one item has a type the agent has not enabled', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    await expect(
      batch(deps, agentId, [{ content: 'a' }, { content: 'b', memoryType: 'procedural' }]),
    ).rejects.toMatchObject({
      details: [
        expect.objectContaining({ field: 'items[1].memory_type', message: expect.stringContaining('not enabled') }),
      ],
    });
    expect(fakes.memories.byId.size).toBe(0);
  });

  it('refuses a batch that does not fit the quota whole, and stores a smaller one that does', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    fakes.memories.seed('t1', agentId, 9_988);
    await batch(deps, agentId, [{ content: 'makes the counter' }, { content: 'and counts 9,990' }]);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, (_, b) =>
        batch(
          deps,
          agentId,
          Array.from({ length: 4 }, (_, i) => ({ content: `batch ${b} item ${i}` })),
        ),
      ),
    );
    // 10 units left: two batches of 4 fit, the other two are refused whole.
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'quota_exceeded' });
    }
    expect(fakes.memories.byId.size).toBe(9_998);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(9_998);
    expect((await batch(deps, agentId, [{ content: 'one' }, { content: 'two' }])).length).toBe(2);
  });

  it("answers 404 for another tenant's agent and an agent deleted during the write, storing nothing", async () => {
    const { deps, fakes, agentId, inserts } = await depsWithAgent();
    await expect(addMemories(deps, { tenantId: 't2', agentId, items: [{ content: 'theirs' }] })).rejects.toMatchObject({
      code: 'not_found',
    });
    const insertMany = fakes.memories.insertMany.bind(fakes.memories);
    inserts.mockImplementationOnce(async (items) => {
      await deleteAgent(deps, { tenantId: 't1', agentId });
      return insertMany(items);
    });
    await expect(batch(deps, agentId, [{ content: 'too late' }, { content: 'also' }])).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(fakes.memories.byId.size).toBe(0);
    expect(fakes.index.applied).toEqual([]);
  });
});
