import { depsWithAgent } from '../testing/in-memory.js';
import { deleteAgent } from './manage-agents.js';
import { addMemory, storeMemory } from './add-memory.js';

const add = (deps: Parameters<typeof addMemory>[0], agentId: string, content: string, extra = {}) =>
  addMemory(deps, { tenantId: 't1', agentId, content, ...extra });

describe('memory adds written in groups', () => {
  it('writes concurrent adds of one agent with one insert and one version bump per group', async () => {
    const { deps, fakes, agentId, inserts, bumps } = await depsWithAgent();
    const items = await Promise.all(Array.from({ length: 20 }, (_, i) => add(deps, agentId, `fact ${i}`)));
    expect(new Set(items.map((item) => item.id)).size).toBe(20);
    expect(items.map((item) => item.content)).toEqual(Array.from({ length: 20 }, (_, i) => `fact ${i}`));
    expect(fakes.memories.byId.size).toBe(20);
    // The first add goes out alone; the 19 that arrive while it is written share the next group.
    expect(inserts).toHaveBeenCalledTimes(2);
    expect(bumps).toHaveBeenCalledTimes(2);
    expect(fakes.index.applied.map((a) => [a.version, a.upsert.length])).toEqual([
      [1, 1],
      [2, 19],
    ]);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(20);
  });

  it("counts chats' episodic memories toward the quota with one increment per group, never refusing", async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    const agent = (await fakes.agents.find('t1', agentId))!;
    await add(deps, agentId, 'a fact', { plan: 'free' });
    const increments = jest.spyOn(fakes.quotas, 'add');
    const stored = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        storeMemory(deps, agent, { memoryType: 'episodic', content: `User: q${i}\nAssistant: a${i}`, metadata: {} }),
      ),
    );
    expect(stored).toHaveLength(10);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(11);
    // The first goes out alone, the other nine together.
    expect(increments.mock.calls).toEqual([
      [agentId, 'memories', 1],
      [agentId, 'memories', 9],
    ]);
  });

  it('refuses only the add whose type is not enabled; the rest of its group is stored', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    const outcomes = await Promise.allSettled([
      add(deps, agentId, 'first'),
      add(deps, agentId, 'a procedure', { memoryType: 'procedural' }),
      add(deps, agentId, 'second', { memoryType: 'episodic' }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      details: [expect.objectContaining({ field: 'memory_type' })],
    });
    expect([...fakes.memories.byId.values()].map((m) => m.content).sort()).toEqual(['first', 'second']);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(2);
  });

  it('stores what fits the quota when a group is larger than the room left, and refuses the rest', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    fakes.memories.seed('t1', agentId, 9_998);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => add(deps, agentId, `new ${i}`)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'quota_exceeded' });
    }
    expect(fakes.memories.byId.size).toBe(10_000);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(10_000);
  });

  it('gives an agent deleted while its group is written no memories, and answers 404', async () => {
    const { deps, fakes, agentId, inserts } = await depsWithAgent();
    const insertMany = fakes.memories.insertMany.bind(fakes.memories);
    // The delete runs (and answers) between the group's agent read and its insert.
    inserts.mockImplementationOnce(async (items) => {
      await deleteAgent(deps, { tenantId: 't1', agentId });
      return insertMany(items);
    });
    await expect(add(deps, agentId, 'too late')).rejects.toMatchObject({ code: 'not_found' });
    expect(fakes.memories.byId.size).toBe(0);
    expect(fakes.index.applied).toEqual([]);
  });

  it("never mixes tenants: another tenant's add to the agent is a 404 and stores nothing", async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    const [mine, theirs] = await Promise.allSettled([
      add(deps, agentId, 'mine'),
      addMemory(deps, { tenantId: 't2', agentId, content: 'theirs' }),
    ]);
    expect(mine.status).toBe('fulfilled');
    expect((theirs as PromiseRejectedResult).reason).toMatchObject({ code: 'not_found' });
    expect([...fakes.memories.byId.values()].map((m) => m.content)).toEqual(['mine']);
  });
});

describe('memory adds: the quota taken while the agent is read', () => {
  /** Records the order in which the repositories and the quota counter are called. */
  function trace(fakes: Awaited<ReturnType<typeof depsWithAgent>>['fakes']) {
    const calls: string[] = [];
    for (const [target, name, label] of [
      [fakes.agents, 'find', 'find'],
      [fakes.agents, 'bumpMemoryVersion', 'bump'],
      [fakes.memories, 'insertMany', 'insert'],
      [fakes.quotas, 'acquire', 'acquire'],
    ] as const) {
      type Method = (...args: unknown[]) => Promise<unknown>;
      const own = (target as unknown as Record<string, Method>)[name];
      // depsWithAgent() spies on some already: call the class's own method under them.
      const method = jest.isMockFunction(own) ? (Object.getPrototypeOf(target) as Record<string, Method>)[name] : own;
      const original = method.bind(target);
      jest.spyOn(target as never, name as never).mockImplementation(((...args: unknown[]) => {
        calls.push(`${label}:start`);
        return original(...args).finally(() => calls.push(`${label}:end`));
      }) as never);
    }
    return calls;
  }

  it('reads an unknown agent first, then no more while the types it has enabled cover the adds', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    const calls = trace(fakes);
    await add(deps, agentId, 'first'); // not known yet: the agent is read first
    expect(calls.slice(0, 3)).toEqual(['find:start', 'find:end', 'acquire:start']);
    calls.length = 0;
    const items = await Promise.all(Array.from({ length: 6 }, (_, i) => add(deps, agentId, `fact ${i}`)));
    expect(items.map((item) => item.content)).toEqual(Array.from({ length: 6 }, (_, i) => `fact ${i}`));
    // Known now: no read; the quota, then the insert, then the bump, for each of the two groups.
    expect(calls).toEqual(
      Array.from({ length: 2 }, () =>
        ['acquire', 'insert', 'bump'].flatMap((call) => [`${call}:start`, `${call}:end`]),
      ).flat(),
    );
    expect(fakes.index.applied.map((a) => [a.version, a.upsert.length])).toEqual([
      [1, 1],
      [2, 1],
      [3, 5],
    ]);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(7);
  });

  it("takes a known agent's quota while reading it when an add's type is not among those it knew", async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    await add(deps, agentId, 'first'); // known: semantic and episodic enabled
    // Another replica enables procedural memories.
    await fakes.agents.update('t1', agentId, { memoryTypes: ['semantic', 'procedural'] }, new Date());
    const calls = trace(fakes);
    const stored = await add(deps, agentId, 'a procedure', { memoryType: 'procedural' });
    expect(stored.memoryType).toBe('procedural');
    // Both start before either ends, then the insert, then the bump.
    expect(calls.slice(0, 2).sort()).toEqual(['acquire:start', 'find:start']);
    expect(calls.indexOf('insert:start')).toBeGreaterThan(
      Math.max(calls.indexOf('find:end'), calls.indexOf('acquire:end')),
    );
    expect(calls.indexOf('bump:start')).toBeGreaterThan(calls.indexOf('insert:end'));
    // What that read found is known now: the next procedural add is not read.
    calls.length = 0;
    await add(deps, agentId, 'another procedure', { memoryType: 'procedural' });
    expect(calls).not.toContain('find:start');
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(3);
  });

  it('refuses an add whose type another replica disabled since this one read the agent', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    await add(deps, agentId, 'first'); // known: semantic and episodic enabled
    await fakes.agents.update('t1', agentId, { memoryTypes: ['episodic'] }, new Date());
    const find = jest.spyOn(fakes.agents, 'find');
    const outcomes = await Promise.allSettled([
      add(deps, agentId, 'a fact'), // semantic: disabled now
      add(deps, agentId, 'an event', { memoryType: 'episodic' }),
    ]);
    expect(find).not.toHaveBeenCalled();
    expect(outcomes[0]).toMatchObject({
      status: 'rejected',
      reason: { code: 'validation_error', details: [expect.objectContaining({ field: 'memory_type' })] },
    });
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: { content: 'an event' } });
    // The refused item is gone again, its unit given back, and the version bumped after that.
    expect([...fakes.memories.byId.values()].map((m) => m.content).sort()).toEqual(['an event', 'first']);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(2);
    expect((await fakes.agents.find('t1', agentId))!.memoryVersion).toBe(4);
    // This replica's index was dropped (reloaded at the next search) and then given the stored add only.
    expect(fakes.index.dropped).toEqual([agentId]);
    expect(fakes.index.applied.at(-1)).toMatchObject({ version: 4, upsert: [expect.any(String)] });
    // The types the bump answered are known now: the next semantic add is refused without a write.
    const inserts = jest.spyOn(fakes.memories, 'insertMany');
    inserts.mockClear();
    await expect(add(deps, agentId, 'again')).rejects.toMatchObject({ code: 'validation_error' });
    expect(inserts).not.toHaveBeenCalled();
  });

  it('keeps the units of stored items when removing a refused one fails after the bump', async () => {
    const { deps, fakes, agentId, bumps } = await depsWithAgent();
    await add(deps, agentId, 'first');
    // Another replica disables semantic memories just after the next group's bump has answered,
    // so that the group after it is written as this replica knew the agent.
    const bump = (Object.getPrototypeOf(fakes.agents) as typeof fakes.agents).bumpMemoryVersion.bind(fakes.agents);
    bumps.mockImplementationOnce(async (tenantId, id) => {
      const answer = await bump(tenantId, id);
      await fakes.agents.update('t1', agentId, { memoryTypes: ['episodic'] }, new Date());
      return answer;
    });
    jest.spyOn(fakes.memories, 'deleteIds').mockRejectedValueOnce(new Error('connection lost'));
    // The first add goes out alone; the other two share the next group, whose removal fails.
    const outcomes = await Promise.allSettled([
      add(deps, agentId, 'an early event', { memoryType: 'episodic' }),
      add(deps, agentId, 'a fact'), // semantic: disabled by then
      add(deps, agentId, 'an event', { memoryType: 'episodic' }),
    ]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? o.reason.message : o.status))).toEqual([
      'fulfilled',
      'connection lost',
      'connection lost',
    ]);
    // The group's items stay stored, as after a crash there: the counter counts them (never fewer).
    expect(fakes.memories.byId.size).toBe(4);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(4);
  });

  it("never takes another tenant's agent's units, even for an agent this replica knows", async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    await add(deps, agentId, 'mine');
    const acquire = jest.spyOn(fakes.quotas, 'acquire');
    const release = jest.spyOn(fakes.quotas, 'release');
    await expect(addMemory(deps, { tenantId: 't2', agentId, content: 'theirs' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(acquire).not.toHaveBeenCalled();
    expect(release).not.toHaveBeenCalled();
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(1);
  });

  it('gives back the units taken for a known agent found deleted, and answers 404', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    await add(deps, agentId, 'first');
    await fakes.agents.delete('t1', agentId);
    await expect(add(deps, agentId, 'too late')).rejects.toMatchObject({ code: 'not_found' });
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(1);
    expect(fakes.memories.byId.size).toBe(1);
  });

  it('at the limit, refuses no add for a unit an add with a wrong type held', async () => {
    const { deps, fakes, agentId } = await depsWithAgent();
    await add(deps, agentId, 'known'); // the agent is now known: its units are taken early
    fakes.memories.seed('t1', agentId, 9_997);
    await fakes.quotas.forget(agentId, 'memories'); // counted again from the items: 9,998
    await add(deps, agentId, 'alone'); // 9,999
    // One group: a type the agent has not enabled first, then two adds for the one unit left.
    const outcomes = await Promise.allSettled([
      add(deps, agentId, 'wrong', { memoryType: 'procedural' }),
      add(deps, agentId, 'fits'),
      add(deps, agentId, 'over'),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'stored' : o.reason.code))).toEqual([
      'validation_error',
      'stored',
      'quota_exceeded',
    ]);
    expect(fakes.memories.byId.size).toBe(10_000);
    expect(fakes.quotas.counted(agentId, 'memories')).toBe(10_000);
  });
});
