import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { consolidateMemory } from './consolidate-memory.js';
import { createAgent } from './manage-agents.js';
import { addMemory } from './add-memory.js';
import { searchMemory } from './search-memory.js';

const EMAIL = 'The customer prefers to be contacted by email';
/** Similarity to EMAIL with the offline embedding: about 0.89, under the default threshold of 0.9. */
const EMAIL_ONLY = 'The customer prefers to be contacted by email only';
const OFFICE = 'The office closes at six on Fridays';

async function setup() {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  const agent = await createAgent(deps, { tenantId: 't1', name: 'Helper', type: 'assistant' });
  const add = (
    content: string,
    extra: { memoryType?: string; metadata?: Record<string, unknown> } = {},
    tenantId = 't1',
    agentId = agent.id,
  ) => addMemory(deps, { tenantId, agentId, content, ...extra });
  const contents = () =>
    [...fakes.memories.byId.values()]
      .filter((m) => m.agentId === agent.id)
      .map((m) => m.content)
      .sort();
  return { deps, fakes, agentId: agent.id, add, contents };
}

describe('consolidateMemory', () => {
  it('merges exact duplicates into the oldest, recording what it absorbed, and keeps the rest', async () => {
    const { deps, fakes, agentId, add, contents } = await setup();
    const kept = await add(EMAIL, { metadata: { source: 'crm', owner: 'kept' } });
    const twin = await add(EMAIL, { metadata: { owner: 'twin', ticket: 42 } });
    const office = await add(OFFICE);
    const near = await add(EMAIL_ONLY);
    const before = fakes.quotas.counted(agentId, 'memories');

    const result = await consolidateMemory(deps, { tenantId: 't1', agentId });

    expect(result).toEqual({
      groups: [{ keptId: kept.id, mergedIds: [twin.id] }],
      merged: 1,
      removed: 1,
      remaining: 3,
    });
    expect(contents()).toEqual([EMAIL, EMAIL_ONLY, OFFICE].sort());
    const survivor = fakes.memories.byId.get(kept.id)!;
    // The kept item's own keys win; keys only the absorbed item had fill in.
    expect(survivor.metadata).toEqual({ source: 'crm', owner: 'kept', ticket: 42 });
    expect(survivor.mergedFrom).toEqual([
      { id: twin.id, content: EMAIL, metadata: { owner: 'twin', ticket: 42 }, createdAt: twin.createdAt },
    ]);
    expect(fakes.memories.byId.has(office.id) && fakes.memories.byId.has(near.id)).toBe(true);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(before! - 1);
    expect(fakes.outbox.events.at(-1)).toMatchObject({
      type: 'memory.consolidated',
      data: { agent_id: agentId, merged: 1, removed: 1, remaining: 3 },
    });
    // Searches see the merge at once: the absorbed item is no longer found.
    const found = await searchMemory(deps, { tenantId: 't1', agentId, query: 'contacted by email', topK: 10 });
    expect(found.map((r) => r.item.id)).not.toContain(twin.id);
    expect(found.map((r) => r.item.id)).toContain(kept.id);
  });

  it('keeps the longest text of a group when a lower threshold lets near-duplicates merge', async () => {
    const { deps, agentId, add, contents } = await setup();
    const short = await add(EMAIL);
    const long = await add(EMAIL_ONLY);
    await add(OFFICE);

    await expect(consolidateMemory(deps, { tenantId: 't1', agentId })).resolves.toMatchObject({ merged: 0 });
    expect(contents()).toHaveLength(3);

    const result = await consolidateMemory(deps, { tenantId: 't1', agentId, threshold: 0.85 });
    expect(result.groups).toEqual([{ keptId: long.id, mergedIds: [short.id] }]);
    expect(contents()).toEqual([EMAIL_ONLY, OFFICE].sort());
  });

  it('never merges items of different memory types', async () => {
    const { deps, agentId, add, contents } = await setup();
    await add(EMAIL, { memoryType: 'semantic' });
    await add(EMAIL, { memoryType: 'episodic' });
    const result = await consolidateMemory(deps, { tenantId: 't1', agentId, threshold: 0.5 });
    expect(result).toMatchObject({ merged: 0, removed: 0, remaining: 2 });
    expect(contents()).toEqual([EMAIL, EMAIL]);
  });

  it('embeds items still waiting for a vector before comparing them', async () => {
    const { deps, fakes, agentId, add } = await setup();
    await add(EMAIL);
    await add(EMAIL);
    expect([...fakes.memories.byId.values()].every((m) => m.embedding === undefined)).toBe(true);
    await expect(consolidateMemory(deps, { tenantId: 't1', agentId })).resolves.toMatchObject({ merged: 1 });
    expect(fakes.backlog.drained).toEqual([agentId]);
  });

  it("answers 404 for another tenant's agent and leaves its items alone", async () => {
    const { deps, fakes, add } = await setup();
    const theirs = await createAgent(deps, { tenantId: 't2', name: 'Theirs', type: 'assistant' });
    await add(EMAIL, {}, 't2', theirs.id);
    await add(EMAIL, {}, 't2', theirs.id);

    await expect(consolidateMemory(deps, { tenantId: 't1', agentId: theirs.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(consolidateMemory(deps, { tenantId: 't1', agentId: 'agt_missing' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect([...fakes.memories.byId.values()].filter((m) => m.agentId === theirs.id)).toHaveLength(2);
    expect(fakes.outbox.types()).not.toContain('memory.consolidated');
  });

  it("consolidates only the named agent's items", async () => {
    const { deps, fakes, agentId, add } = await setup();
    const sibling = await createAgent(deps, { tenantId: 't1', name: 'Sibling', type: 'assistant' });
    await add(EMAIL);
    await add(EMAIL, {}, 't1', sibling.id);
    await add(EMAIL, {}, 't1', sibling.id);
    await expect(consolidateMemory(deps, { tenantId: 't1', agentId })).resolves.toMatchObject({
      merged: 0,
      remaining: 1,
    });
    expect([...fakes.memories.byId.values()].filter((m) => m.agentId === sibling.id)).toHaveLength(2);
  });

  it.each([0.49, 1.01, Number.NaN])('refuses threshold %p as a 400 naming threshold', async (threshold) => {
    const { deps, agentId } = await setup();
    await expect(consolidateMemory(deps, { tenantId: 't1', agentId, threshold })).rejects.toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ field: 'threshold' })],
    });
  });

  it('with nothing to merge, changes nothing and leaves the search index version alone', async () => {
    const { deps, fakes, agentId, add } = await setup();
    await add(EMAIL);
    await add(OFFICE);
    const applied = fakes.index.applied.length;
    await expect(consolidateMemory(deps, { tenantId: 't1', agentId })).resolves.toEqual({
      groups: [],
      merged: 0,
      removed: 0,
      remaining: 2,
    });
    expect(fakes.index.applied).toHaveLength(applied);
    expect(fakes.outbox.events.at(-1)).toMatchObject({
      type: 'memory.consolidated',
      data: { merged: 0, remaining: 2 },
    });
  });
});
