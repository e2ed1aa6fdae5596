import { suiteFixture } from '@agentplatform/testing';
import { HOOK_ID, newHookId } from '../src/domain/hook-id';
import { startWorkflowStore } from './store.support';

/**
 * Secret hook ids against the real MongoDB-compatible server: the start-up migration gives each
 * older workflow exactly one id even when several replicas run it at once, and lookups use it.
 */
describe('hook ids', () => {
  const store = suiteFixture(() => startWorkflowStore('hooks'));

  it('generates hk_ and 32 base62 characters, all different', () => {
    const ids = new Set(Array.from({ length: 1_000 }, newHookId));
    expect(ids.size).toBe(1_000);
    for (const id of ids) expect(id).toMatch(HOOK_ID);
  });

  it('gives every older workflow one hook id, idempotently, with replicas migrating together', async () => {
    const { workflows } = store;
    const now = new Date();
    const legacy = Array.from({ length: 20 }, (_, i) => ({
      _id: `wf_legacy${i}`,
      tenant_id: 'ten_1',
      name: `legacy ${i}`,
      description: '',
      status: 'active',
      nodes: [{ id: 'hook', type: 'webhook', config: {} }],
      edges: [],
      created_at: now,
      updated_at: now,
    }));
    await workflows.model.collection.insertMany(legacy as never[]);

    const given = await Promise.all([1, 2, 3].map(() => workflows.migrateHookIds(newHookId)));
    expect(given.reduce((a, b) => a + b, 0)).toBe(20);
    expect(await workflows.migrateHookIds(newHookId)).toBe(0);

    const docs = await workflows.model.collection.find({ _id: { $in: legacy.map((w) => w._id) } } as never).toArray();
    const hookIds = docs.map((d) => d.hook_id as string);
    expect(new Set(hookIds).size).toBe(20);
    for (const id of hookIds) expect(id).toMatch(HOOK_ID);
    const found = await workflows.getForHook(hookIds[0]!);
    expect(found?.id).toBe(docs[0]!._id);
    expect(await workflows.getForHook(newHookId())).toBeUndefined();
  });

  it('rotates: the old id finds nothing, the new one finds the workflow, another tenant changes nothing', async () => {
    const { workflows } = store;
    const now = new Date();
    const hookId = newHookId();
    await workflows.insert({
      id: 'wf_rotating',
      tenantId: 'ten_1',
      hookId: hookId,
      name: 'rotating',
      description: '',
      status: 'active',
      version: 1,
      nodes: [],
      edges: [],
      createdAt: now,
      updatedAt: now,
    });
    expect(await workflows.rotateHook('ten_2', 'wf_rotating', newHookId(), now)).toBeUndefined();
    expect((await workflows.getForHook(hookId))?.id).toBe('wf_rotating');
    const next = newHookId();
    const rotated = await workflows.rotateHook('ten_1', 'wf_rotating', next, now);
    expect(rotated?.hookId).toBe(next);
    expect(await workflows.getForHook(hookId)).toBeUndefined();
    expect((await workflows.getForHook(next))?.id).toBe('wf_rotating');
  });
});
