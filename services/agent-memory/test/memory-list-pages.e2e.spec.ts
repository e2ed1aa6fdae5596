import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { callVerdicts, newId, QuotaCounter, recordQueryShapes } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import type { MemoryType } from '../src/domain/agent';
import type { MemoryItem } from '../src/domain/memory';
import { MemoryRepository } from '../src/persistence/memory.repository';

async function startStore() {
  const dbName = `memory_lists_${randomBytes(4).toString('hex')}`;
  const connection = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
  const memories = new MemoryRepository(connection);
  await memories.init();
  return {
    connection,
    memories,
    async stop() {
      await connection.dropDatabase();
      await connection.close();
    },
  };
}

function item(agentId: string, n: number, memoryType: MemoryType = 'semantic'): MemoryItem {
  const at = new Date();
  return {
    id: newId('mem'),
    tenantId: 'ten_a',
    agentId,
    memoryType,
    content: `fact ${n}`,
    metadata: {},
    mergedFrom: [],
    createdAt: at,
    updatedAt: at,
  };
}

describe("an agent's memory list on the real MongoDB-compatible server", () => {
  const store = suiteFixture(() => startStore());

  it("reads the first page by _id, not by a scan of every agent's memories", async () => {
    const { connection, memories } = store;
    // Other agents' memories: what a sorted query would read on every page.
    for (let batch = 0; batch < 4; batch += 1)
      await memories.insertMany(Array.from({ length: 500 }, (_, i) => item(`agt_other${batch}`, i)));
    await memories.insertMany(Array.from({ length: 12 }, (_, i) => item('agt_listed', i)));
    await memories.insertMany([item('agt_listed', 100, 'episodic')]);

    // The first page fills the agent's window from what it stored before (one scan, once).
    expect((await memories.list('ten_a', { agentId: 'agt_listed' }, 0, 20)).total).toBe(13);

    const seen = recordQueryShapes(connection);
    const page = await memories.list('ten_a', { agentId: 'agt_listed' }, 0, 20);
    const episodic = await memories.list('ten_a', { agentId: 'agt_listed', memoryType: 'episodic' }, 0, 20);
    const otherTenant = await memories.list('ten_b', { agentId: 'agt_listed' }, 0, 20);
    connection.set('debug', false);

    const expected = await memories.list('ten_a', { agentId: 'agt_listed' }, 20, 20);
    expect(expected).toEqual({ items: [], total: 13 });
    expect(page.total).toBe(13);
    expect(page.items.map((m) => m.content)).toEqual([
      'fact 100',
      ...Array.from({ length: 12 }, (_, i) => `fact ${11 - i}`),
    ]);
    expect(page.items[0]!.embedding?.vector).toBeUndefined();
    expect(episodic.items.map((m) => m.content)).toEqual(['fact 100']);
    expect(otherTenant).toEqual({ items: [], total: 0 });
    // Every call is an index lookup on the stand-in; the sorted query would add a scan here.
    expect(callVerdicts(connection, seen)).toEqual([
      'memories.find(_id) -> _id (stand-in: index)',
      'memory_windows.findOne(_id) -> _id (stand-in: index)',
    ]);
  });

  it("counts a full page's total, and forgets a deleted agent's window", async () => {
    const { connection, memories } = store;
    await memories.insertMany(Array.from({ length: 25 }, (_, i) => item('agt_full', i)));
    const page = await memories.list('ten_a', { agentId: 'agt_full' }, 0, 20);
    expect(page.items.map((m) => m.content)).toEqual(Array.from({ length: 20 }, (_, i) => `fact ${24 - i}`));
    expect(page.total).toBe(25);

    // With the agent's kept count (the quota's counter, made once from a count), no count scans.
    const quotas = new QuotaCounter(connection);
    const count = () => quotas.count('agt_full', 'memories', () => memories.count('ten_a', 'agt_full'));
    await count();
    const seen = recordQueryShapes(connection);
    const counted = await memories.list('ten_a', { agentId: 'agt_full' }, 0, 20, count);
    connection.set('debug', false);
    expect(counted).toEqual(page);
    expect(callVerdicts(connection, seen)).toEqual([
      'memories.find(_id) -> _id (stand-in: index)',
      'memory_windows.findOne(_id) -> _id (stand-in: index)',
      'quota_counters.findOne(_id) -> _id (stand-in: index)',
    ]);

    await memories.deleteAgent('ten_a', 'agt_full');
    expect(await memories.newest.model.exists({ _id: 'agt_full' })).toBeNull();
    expect(await memories.list('ten_a', { agentId: 'agt_full' }, 0, 20)).toEqual({ items: [], total: 0 });
  });

  it('deletes a new agent that never stored a memory without looking through the memories', async () => {
    const { connection, memories } = store;
    await memories.openAgent('agt_new');
    expect(await memories.list('ten_a', { agentId: 'agt_new' }, 0, 20)).toEqual({ items: [], total: 0 });
    const seen = recordQueryShapes(connection);
    expect(await memories.deleteAgent('ten_a', 'agt_new')).toBe(0);
    connection.set('debug', false);
    // A delete by agent would scan every memory on the stand-in; the window says there is none.
    expect(callVerdicts(connection, seen)).toEqual([
      'memory_windows.deleteMany(_id) -> _id (stand-in: index)',
      'memory_windows.findOne(_id) -> _id (stand-in: index)',
    ]);

    // One that stored a memory since it was opened has it deleted.
    await memories.openAgent('agt_used');
    await memories.insertMany([item('agt_used', 1)]);
    expect(await memories.deleteAgent('ten_a', 'agt_used')).toBe(1);
    expect(await memories.list('ten_a', { agentId: 'agt_used' }, 0, 20)).toEqual({ items: [], total: 0 });
  });
});
