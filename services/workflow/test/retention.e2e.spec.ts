import { suiteFixture } from '@agentplatform/testing';
import type { Execution } from '../src/domain/execution.types';
import { NO_LEASE } from '../src/persistence/execution.repository';
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
      tenantId: 'ten_1',
      workflowId: 'wf_1',
      workflowVersion: 1,
      status,
      trigger: 'manual',
      input: {},
      graph: { nodes: [], edges: [] },
      nodeExecutions: [],
      startedAt: started,
      deadlineAt: new Date(started.getTime() + 60_000),
      startedEvent: true,
      ...(finished ? { completedAt: new Date(started.getTime() + 1_000), durationMs: 1_000 } : {}),
    };
  }

  it('deletes finished executions older than the retention period and keeps the rest', async () => {
    const { connection, executions } = store;
    await executions.insert(execution('exe_old_completed', 'completed', 31), NO_LEASE);
    await executions.insert(execution('exe_old_failed', 'failed', 45), NO_LEASE);
    await executions.insert(execution('exe_old_cancelled', 'cancelled', 40), NO_LEASE);
    await executions.insert(execution('exe_recent', 'completed', 29), NO_LEASE);
    await executions.insert(execution('exe_old_running', 'running', 60), NO_LEASE);

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
