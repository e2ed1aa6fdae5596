import { suiteFixture } from '@agentplatform/testing';
import type { Execution } from '../src/domain/execution.types';
import { NO_LEASE } from '../src/domain/lease';
import { pruneExecutions } from '../src/use-cases/prune-executions';
import { executionAt, startWorkflowStore } from './store.support';

/** Retention against the real MongoDB-compatible server: only finished executions past the period go. */
describe('execution retention', () => {
  const store = suiteFixture(() => startWorkflowStore('retention'));
  const DAY = 86_400_000;
  const now = new Date('2026-06-30T12:00:00Z');

  /** Started `ageDays` before `now`; a finished one took a second. */
  const execution = (id: string, status: Execution['status'], ageDays: number): Execution =>
    executionAt(id, status, new Date(now.getTime() - ageDays * DAY), 1_000);

  it('deletes finished executions older than the retention period and keeps the rest', async () => {
    const { connection, executions } = store;
    await executions.insert(execution('exe_old_completed', 'completed', 31), NO_LEASE);
    await executions.insert(execution('exe_old_failed', 'failed', 45), NO_LEASE);
    await executions.insert(execution('exe_old_cancelled', 'cancelled', 40), NO_LEASE);
    await executions.insert(execution('exe_recent', 'completed', 29), NO_LEASE);
    await executions.insert(execution('exe_old_running', 'running', 60), NO_LEASE);

    const deleted = await pruneExecutions({ executions }, { retentionDays: 30, keepPerWorkflow: 0, now });
    expect(deleted).toBe(3);
    const left = await connection
      .collection('executions')
      .find({}, { projection: { _id: 1 } })
      .toArray();
    expect(left.map((d) => d._id).sort()).toEqual(['exe_old_running', 'exe_recent']);
    expect(await pruneExecutions({ executions }, { retentionDays: 30, keepPerWorkflow: 0, now })).toBe(0);
  });

  it("keeps each workflow's newest executions past the period, and prunes the rest in batches", async () => {
    const { connection, executions } = store;
    const finished = (id: string, workflowId: string, ageDays: number, i: number) => {
      const started = new Date(now.getTime() - ageDays * DAY + i * 1_000);
      return {
        _id: id,
        tenant_id: 'ten_2',
        workflow_id: workflowId,
        workflow_version: 1,
        status: 'completed',
        trigger: 'manual',
        started_at: started,
        completed_at: new Date(started.getTime() + 500),
        deadline_at: new Date(started.getTime() + 60_000),
        node_executions: [],
      };
    };
    // A busy workflow: 1,200 runs, all past the period; a rare one: 3 runs, all past it too (the
    // default keeps 1,000 a workflow; 100 here keeps the suite quick).
    await connection
      .collection('executions')
      .insertMany(Array.from({ length: 1_200 }, (_, i) => finished(`exe_busy_${i}`, 'wf_busy', 60, i)) as never[]);
    await connection
      .collection('executions')
      .insertMany(Array.from({ length: 3 }, (_, i) => finished(`exe_rare_${i}`, 'wf_rare', 90, i)) as never[]);
    const deletes: unknown[] = [];
    connection.set('debug', (collection: string, method: string) => {
      if (collection === 'executions' && method === 'deleteMany') deletes.push(method);
    });
    const deleted = await pruneExecutions({ executions }, { retentionDays: 30, keepPerWorkflow: 100, now });
    connection.set('debug', false);
    expect(deleted).toBe(1_100);
    // The oldest 1,100 of the busy workflow went; its newest 100 and all of the rare one's stay.
    const left = await connection
      .collection('executions')
      .find({ tenant_id: 'ten_2' }, { projection: { _id: 1 } })
      .toArray();
    const ids = new Set(left.map((d) => String(d._id)));
    expect(ids.size).toBe(103);
    expect(ids.has('exe_busy_1099')).toBe(false);
    expect(ids.has('exe_busy_1100')).toBe(true);
    expect(['exe_rare_0', 'exe_rare_1', 'exe_rare_2'].every((id) => ids.has(id))).toBe(true);
    // Candidates come 500 at a time, oldest first, each batch one delete by _id: the rare
    // workflow's 3 (kept) and the busy one's oldest 497 (all go), the next 500, then 103 of the
    // last 203.
    expect(deletes).toHaveLength(3);
    expect(await pruneExecutions({ executions }, { retentionDays: 30, keepPerWorkflow: 100, now })).toBe(0);
  });
});
