import { callVerdicts, recordQueryShapes } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import { NO_LEASE } from '../src/domain/lease';
import type { Execution } from '../src/domain/execution.types';
import type { ExecutionDocument } from '../src/persistence/execution.schema';
import { executionAt, startWorkflowStore, storedExecution } from './store.support';

const MINUTE = 60_000;

/** A run of wf_list started `minutesAgo` minutes ago. */
function run(id: string, status: Execution['status'], minutesAgo: number): Execution {
  return { ...executionAt(id, status, new Date(Date.now() - minutesAgo * MINUTE)), workflowId: 'wf_list' };
}

/**
 * `GET /workflows/{id}/executions` on the real MongoDB-compatible server (issue 38): the first page
 * is newest first by start, as the sorted query gives it, but read by `_id` from the workflow's
 * window of newest runs, so the stand-in does not scan and sort every execution on each list.
 */
describe("a workflow's executions list on the real MongoDB-compatible server", () => {
  const store = suiteFixture(() => startWorkflowStore('list'));

  beforeAll(async () => {
    // Other workflows' history: what the sorted query would read on every page.
    const at = new Date(Date.now() - 60 * MINUTE);
    const history = Array.from({ length: 2_000 }, (_, i) => storedExecution(`exe_hist_${i}`, 'ten_1', 'wf_hist', at));
    await store.connection.collection<ExecutionDocument>('executions').insertMany(history);
  });

  it('answers the sorted order from the window, a started queued run first, without a scan', async () => {
    const { connection, executions } = store;
    // Stored before the window existed: the first list fills it with one scan, once.
    await connection
      .collection<ExecutionDocument>('executions')
      .insertMany([storedExecution('exe_old_b', 'ten_1', 'wf_list', new Date(Date.now() - 50 * MINUTE))]);
    for (let i = 0; i < 5; i++) await executions.insert(run(`exe_done_${i}`, 'completed', 40 - i), NO_LEASE);
    await executions.insert(run('exe_waiting', 'queued', 45), NO_LEASE);
    const lease = { owner: 'me', until: new Date(Date.now() + MINUTE) };
    await executions.insert(run('exe_running', 'running', 1), lease);

    const expected = (await executions.list('ten_1', 'wf_list', { limit: 100 })).items.map((e) => e.id);
    expect(expected).toEqual([
      'exe_running',
      ...Array.from({ length: 5 }, (_, i) => `exe_done_${4 - i}`),
      'exe_waiting',
      'exe_old_b',
    ]);

    // The queued run starts now: it leads the list, once.
    expect(await executions.startQueued('exe_waiting', 'me', new Date(), lease.until)).toBeDefined();
    // The first full page makes the workflow's count of runs from one count of the collection.
    expect((await executions.list('ten_1', 'wf_list', { limit: 1 })).total).toBe(8);
    const seen = recordQueryShapes(connection);
    const page = await executions.list('ten_1', 'wf_list', { limit: 3 });
    const completed = await executions.list('ten_1', 'wf_list', { limit: 2, status: 'completed' });
    const otherTenant = await executions.list('ten_2', 'wf_list', { limit: 3 });
    connection.set('debug', false);

    expect(page.items.map((e) => e.id)).toEqual(['exe_waiting', 'exe_running', 'exe_done_4']);
    expect(page.total).toBe(8);
    expect(page.items[0]!.nodeExecutions).toEqual([]);
    expect(completed.items.map((e) => e.id)).toEqual(['exe_done_4', 'exe_done_3']);
    expect(completed.total).toBe(6);
    expect(otherTenant).toEqual({ items: [], total: 0 });
    // The page is read by `_id`, its total from the workflow's count; only a full page filtered by
    // status still counts the collection (a count, not a sort).
    expect(callVerdicts(connection, seen)).toEqual([
      'execution_windows.findOne(_id) -> _id (stand-in: index)',
      'executions.countDocuments(tenant_id,workflow_id,status) -> tenant_id,workflow_id,started_at',
      'executions.find(_id) -> _id (stand-in: index)',
      'quota_counters.findOne(_id) -> _id (stand-in: index)',
    ]);
  });

  it("reads a new workflow's runs and total without a scan or a count from its first list", async () => {
    const { connection, executions } = store;
    await executions.openWorkflow('wf_fresh');
    for (let i = 0; i < 3; i++) {
      const at = new Date(Date.now() - (10 - i) * MINUTE);
      await executions.insert({ ...executionAt(`exe_fresh_${i}`, 'completed', at), workflowId: 'wf_fresh' }, NO_LEASE);
    }

    const seen = recordQueryShapes(connection);
    const first = await executions.list('ten_1', 'wf_fresh', { limit: 2 });
    connection.set('debug', false);

    expect(first.items.map((e) => e.id)).toEqual(['exe_fresh_2', 'exe_fresh_1']);
    expect(first.total).toBe(3);
    // Without the window opened with the workflow, the first list fills the window by the sorted query and makes the
    // count from a count of the collection.
    expect(callVerdicts(connection, seen)).toEqual([
      'execution_windows.findOne(_id) -> _id (stand-in: index)',
      'executions.find(_id) -> _id (stand-in: index)',
      'quota_counters.findOne(_id) -> _id (stand-in: index)',
    ]);
  });

  it("matches the sorted query after runs are pruned, and forgets a deleted workflow's window", async () => {
    const { connection, executions } = store;
    const sorted = async () =>
      (
        await connection
          .collection<ExecutionDocument>('executions')
          .find({ tenant_id: 'ten_1', workflow_id: 'wf_list' })
          .sort({ started_at: -1, _id: -1 })
          .limit(4)
          .toArray()
      ).map((d) => d._id);
    await connection.collection('executions').deleteMany({ _id: { $in: ['exe_running', 'exe_done_3'] } as never });
    expect((await executions.list('ten_1', 'wf_list', { limit: 4 })).items.map((e) => e.id)).toEqual(await sorted());

    await executions.deleteForWorkflow('ten_1', 'wf_list');
    expect(await executions.newest.model.exists({ _id: 'wf_list' })).toBeNull();
    expect(await executions.list('ten_1', 'wf_list', { limit: 4 })).toEqual({ items: [], total: 0 });
  });

  it('keeps the total as runs are stored and pruned, on any number of replicas, without counting them', async () => {
    const { connection, executions } = store;
    const longAgo = (i: number) => ({ ...run(`exe_total_${i}`, 'completed', 600 - i), workflowId: 'wf_total' });
    await executions.insert(longAgo(0), NO_LEASE);
    expect((await executions.list('ten_1', 'wf_total', { limit: 1 })).total).toBe(1);
    // Stored together (one group commit) and one by one; a duplicate insert is not counted.
    await Promise.all(Array.from({ length: 20 }, (_, i) => executions.insert(longAgo(i + 1), NO_LEASE)));
    for (let i = 21; i < 30; i++) await executions.insert(longAgo(i), NO_LEASE);
    await expect(executions.insert(longAgo(5), NO_LEASE)).rejects.toThrow();
    const seen = recordQueryShapes(connection);
    expect((await executions.list('ten_1', 'wf_total', { limit: 5 })).total).toBe(30);
    connection.set('debug', false);
    expect(callVerdicts(connection, seen).filter((v) => v.includes('countDocuments'))).toEqual([]);

    // Two replicas prune at once: each run goes once, and the total with it.
    await Promise.all(
      [1, 2].map(() =>
        executions.pruneFinishedBefore(new Date(Date.now() - 60 * MINUTE), { keepPerWorkflow: 10, batchSize: 7 }),
      ),
    );
    const stored = await connection
      .collection<ExecutionDocument>('executions')
      .countDocuments({ tenant_id: 'ten_1', workflow_id: 'wf_total' });
    expect(stored).toBe(10);
    expect((await executions.list('ten_1', 'wf_total', { limit: 5 })).total).toBe(10);
  });
});
