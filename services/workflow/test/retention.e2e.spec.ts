import { suiteFixture } from '@agentplatform/testing';
import type { Execution } from '../src/domain/execution.types';
import { pruneExecutions } from '../src/use-cases/prune-executions';
import { startWorkflowStore } from './store.support';

/** Retention against the real MongoDB-compatible server: only finished executions past the period go. */
describe('execution retention', () => {
  const store = suiteFixture(() => startWorkflowStore('retention'));
  const DAY = 86_400_000;
  const now = new Date('2026-06-30T12:00:00Z');

  function execution(
    id: string,
    status: Execution['status'],
    ageDays: number,
    finished = status !== 'running',
  ): Execution {
    const started = new Date(now.getTime() - ageDays * DAY);
    return {
      id,
      tenant_id: 'ten_1',
      workflow_id: 'wf_1',
      workflow_version: 1,
      status,
      trigger: 'manual',
      input: {},
      graph: { nodes: [], edges: [] },
      node_executions: [],
      started_at: started,
      deadline_at: new Date(started.getTime() + 60_000),
      started_event: true,
      ...(finished ? { completed_at: new Date(started.getTime() + 1_000), duration_ms: 1_000 } : {}),
    };
  }

  it('deletes finished executions older than the retention period and keeps the rest', async () => {
    const { connection, executions } = store;
    await executions.insert(execution('exe_old_completed', 'completed', 31));
    await executions.insert(execution('exe_old_failed', 'failed', 45));
    await executions.insert(execution('exe_old_cancelled', 'cancelled', 40));
    await executions.insert(execution('exe_recent', 'completed', 29));
    await executions.insert(execution('exe_old_running', 'running', 60));

    const deleted = await pruneExecutions({ executions }, { retentionDays: 30, now });
    expect(deleted).toBe(3);
    const left = await connection
      .collection('executions')
      .find({}, { projection: { _id: 1 } })
      .toArray();
    expect(left.map((d) => d._id).sort()).toEqual(['exe_old_running', 'exe_recent']);
    expect(await pruneExecutions({ executions }, { retentionDays: 30, now })).toBe(0);
  });
});
