import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from './manage-agents.js';
import { addMemory } from './add-memory.js';
import { deleteMemory } from './delete-memory.js';
import { getMemory } from './get-memory.js';
import { listMemories } from './list-memories.js';
import { updateMemory } from './update-memory.js';

function setup() {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  const agent = (tenantId = 't1', extra: Record<string, unknown> = {}, plan?: string) =>
    createAgent(deps, { tenantId, plan, name: 'Helper', type: 'assistant', ...extra });
  return { deps, fakes, agent };
}

const fieldsOf = (error: { details: Array<{ field: string }> }) => error.details.map((d) => d.field);

describe('agents against in-memory repositories', () => {
  it('creates an active agent with the default memory types and announces it once', async () => {
    const { deps, fakes, agent } = setup();
    const created = await agent();
    expect(created).toMatchObject({ status: 'active', memoryTypes: ['semantic', 'episodic'], memoryVersion: 0 });
    expect(fakes.outbox.types()).toEqual(['agent.created']);
    await expect(getAgent(deps, { tenantId: 't1', agentId: created.id })).resolves.toMatchObject({ id: created.id });
    await expect(getAgent(deps, { tenantId: 't2', agentId: created.id })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('names every bad field: missing name, unknown type, out-of-range config', async () => {
    const { deps } = setup();
    const error = await createAgent(deps, {
      tenantId: 't1',
      type: 'robot',
      config: { temperature: 3, max_tokens: 0 },
    }).catch((e) => e);
    expect(fieldsOf(error)).toEqual(
      expect.arrayContaining(['name', 'type', 'config.temperature', 'config.max_tokens']),
    );
  });

  it('stops at the plan quota and frees a unit on delete', async () => {
    const { deps, agent } = setup();
    const made = [];
    for (let i = 0; i < 10; i++) made.push(await agent());
    await expect(agent()).rejects.toMatchObject({ code: 'quota_exceeded' });
    await expect(agent('t1', {}, 'starter')).resolves.toBeDefined();
    await deleteAgent(deps, { tenantId: 't1', agentId: made[0].id });
    await deleteAgent(deps, { tenantId: 't1', agentId: made[1].id });
    await expect(agent()).resolves.toBeDefined();
  });

  it('updates only what changed, names it in agent.updated, and publishes nothing for a no-op', async () => {
    const { deps, fakes, agent } = setup();
    const created = await agent('t1', { config: { temperature: 0.5 } });
    const updated = await updateAgent(deps, {
      tenantId: 't1',
      agentId: created.id,
      name: 'Helper',
      status: 'inactive',
      config: { model: 'm' },
    });
    expect(updated).toMatchObject({ status: 'inactive', config: { temperature: 0.5, model: 'm' } });
    expect(fakes.outbox.events.at(-1)).toMatchObject({
      type: 'agent.updated',
      data: { changed: ['status', 'config'] },
    });
    await updateAgent(deps, { tenantId: 't1', agentId: created.id, status: 'inactive' });
    expect(fakes.outbox.types()).toEqual(['agent.created', 'agent.updated']);
    await expect(updateAgent(deps, { tenantId: 't2', agentId: created.id, name: 'x' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('lists in pages filtered by type; another tenant sees none', async () => {
    const { deps, agent } = setup();
    await agent('t1', { type: 'support' });
    await agent('t1');
    await agent('t1');
    const first = await listAgents(deps, { tenantId: 't1', page: 1, perPage: 2 });
    expect(first).toMatchObject({ total: 3, page: 1, perPage: 2 });
    expect(first.agents).toHaveLength(2);
    await expect(listAgents(deps, { tenantId: 't1', page: 1, perPage: 20, type: 'support' })).resolves.toMatchObject({
      total: 1,
    });
    await expect(listAgents(deps, { tenantId: 't2', page: 0, perPage: 0 })).resolves.toMatchObject({
      total: 0,
      page: 1,
      perPage: 20,
    });
  });

  it('deletes the agent with its memories and drops its search index', async () => {
    const { deps, fakes, agent } = setup();
    const created = await agent();
    await addMemory(deps, { tenantId: 't1', agentId: created.id, content: 'likes tea' });
    fakes.chats.counts.set(`t1/${created.id}`, { sessions: 2, messages: 7 });
    await expect(deleteAgent(deps, { tenantId: 't2', agentId: created.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(deleteAgent(deps, { tenantId: 't1', agentId: created.id })).resolves.toEqual({
      memories: 1,
      sessions: 2,
      messages: 7,
    });
    expect(fakes.memories.byId.size).toBe(0);
    expect(fakes.index.dropped).toEqual([created.id]);
  });
});

describe('memories against in-memory repositories', () => {
  it('stores a trimmed semantic item, bumps the index version and wakes the embedding backlog', async () => {
    const { deps, fakes, agent } = setup();
    const { id } = await agent();
    const item = await addMemory(deps, { tenantId: 't1', agentId: id, content: '  likes tea ' });
    expect(item).toMatchObject({ content: 'likes tea', memoryType: 'semantic', agentId: id });
    expect(fakes.index.applied).toEqual([{ agentId: id, version: 1, upsert: [item.id], remove: [] }]);
    expect(fakes.backlog.kicks).toBe(1);
  });

  it('refuses empty content, a missing agent id, and a type the agent has not enabled', async () => {
    const { deps, agent } = setup();
    const { id } = await agent();
    const error = await addMemory(deps, { tenantId: 't1', agentId: '', content: ' ' }).catch((e) => e);
    expect(fieldsOf(error)).toEqual(['agent_id', 'content']);
    await expect(
      addMemory(deps, { tenantId: 't1', agentId: id, content: 'x', memoryType: 'procedural' }),
    ).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'memory_type' })],
    });
    await expect(addMemory(deps, { tenantId: 't2', agentId: id, content: 'x' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it("hides another tenant's items from get, list, update and delete", async () => {
    const { deps, agent } = setup();
    const { id } = await agent();
    const item = await addMemory(deps, { tenantId: 't1', agentId: id, content: 'secret' });
    await expect(getMemory(deps, { tenantId: 't2', memoryId: item.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(listMemories(deps, { tenantId: 't2', agentId: id, page: 1, perPage: 20 })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(listMemories(deps, { tenantId: 't2', page: 1, perPage: 20 })).resolves.toMatchObject({ total: 0 });
    await expect(updateMemory(deps, { tenantId: 't2', memoryId: item.id, content: 'x' })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(deleteMemory(deps, { tenantId: 't2', memoryId: item.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(getMemory(deps, { tenantId: 't1', memoryId: item.id })).resolves.toMatchObject({ content: 'secret' });
  });

  it('re-embeds only when the content changes, and refuses an unknown type filter', async () => {
    const { deps, fakes, agent } = setup();
    const { id } = await agent();
    const item = await addMemory(deps, { tenantId: 't1', agentId: id, content: 'tea' });
    await updateMemory(deps, { tenantId: 't1', memoryId: item.id, content: 'tea', metadata: { source: 'chat' } });
    expect(fakes.backlog.kicks).toBe(1);
    await expect(updateMemory(deps, { tenantId: 't1', memoryId: item.id, content: 'coffee' })).resolves.toMatchObject({
      content: 'coffee',
      metadata: { source: 'chat' },
    });
    expect(fakes.backlog.kicks).toBe(2);
    await expect(
      listMemories(deps, { tenantId: 't1', memoryType: 'dreams', page: 1, perPage: 20 }),
    ).rejects.toMatchObject({
      details: [expect.objectContaining({ field: 'memory_type' })],
    });
  });

  it('counts memories against the agent quota and gives the unit back on delete', async () => {
    const { deps, fakes, agent } = setup();
    const { id } = await agent();
    const item = await addMemory(deps, { tenantId: 't1', agentId: id, content: 'one' });
    expect(fakes.quotas.counted(id, 'memories')).toBe(1);
    await deleteMemory(deps, { tenantId: 't1', memoryId: item.id });
    expect(fakes.quotas.counted(id, 'memories')).toBe(0);
    expect(fakes.index.applied.at(-1)).toMatchObject({ remove: [item.id] });
    await expect(deleteMemory(deps, { tenantId: 't1', memoryId: item.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
