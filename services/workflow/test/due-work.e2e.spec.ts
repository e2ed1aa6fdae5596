import mongoose from 'mongoose';
import { declaredIndexes, recordQueryShapes, servingIndex } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import { NO_LEASE } from '../src/domain/lease';
import type { Workflow } from '../src/domain/workflow.types';
import { ExecutionRepository } from '../src/persistence/execution.repository';
import type { ExecutionDocument } from '../src/persistence/execution.schema';
import type { WorkflowDocument } from '../src/persistence/workflow.schema';
import { executionAt as execution, startWorkflowStore, storedExecution, storedWorkflow } from './store.support';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function workflow(id: string, nextRunAt: Date | null): Workflow {
  const at = new Date(Date.now() - DAY);
  return {
    id,
    tenantId: 'ten_1',
    hookId: `hk_${id.padEnd(32, '0').slice(0, 32)}`,
    name: id,
    description: '',
    status: 'active',
    version: 1,
    nodes: [{ id: 'tick', type: 'schedule', config: { cron: '* * * * *' } }],
    edges: [],
    nextRunAt,
    createdAt: at,
    updatedAt: at,
  };
}

/** History written straight to the collections: what an idle poll must not pay for. */
async function seedHistory(connection: mongoose.Connection, count: number): Promise<void> {
  const at = new Date(Date.now() - DAY);
  const executions = Array.from({ length: count }, (_, i) => storedExecution(`exe_old_${i}`, 'ten_1', 'wf_old', at));
  const workflows = Array.from({ length: count }, (_, i) => storedWorkflow(`wf_old_${i}`, 'ten_1', at));
  for (let i = 0; i < count; i += 1_000) {
    await connection.collection<ExecutionDocument>('executions').insertMany(executions.slice(i, i + 1_000));
    await connection.collection<WorkflowDocument>('workflows').insertMany(workflows.slice(i, i + 1_000));
  }
}

/** Each call recorded, with the index that answers it on MongoDB and whether the stand-in uses one. */
function verdicts(connection: mongoose.Connection, seen: ReturnType<typeof recordQueryShapes>): string[] {
  const lines = seen.map(({ shape, filter }) => {
    const verdict = servingIndex(shape, filter, declaredIndexes(connection, shape.collection));
    const fields = [...shape.equality, ...shape.range].join(',');
    return `${shape.collection}.${shape.command}(${fields}) -> ${verdict.mongo}${verdict.standIn ? ' (stand-in: index)' : ''}`;
  });
  return [...new Set(lines)].sort();
}

/**
 * The workflow service's repeated queries on the real MongoDB-compatible server (issue 38): the
 * lease takeover, the scheduler's poll and the settle job page through small due collections, and
 * every call on the executions and workflows is an index lookup, however much history they hold.
 */
describe('due work: lease takeover, schedules and settles without a scan', () => {
  const store = suiteFixture(() => startWorkflowStore('due'));

  beforeAll(async () => {
    await seedHistory(store.connection, 3_000);
  });

  it('takes over each expired lease exactly once across two replicas, by index', async () => {
    const { connection, executions } = store;
    const other = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName: connection.name }).asPromise();
    try {
      const replica = new ExecutionRepository(other);
      const now = Date.now();
      const expired = { owner: 'dead-replica', until: new Date(now - 1_000) };
      for (let i = 0; i < 6; i++) await executions.insert(execution(`exe_exp_${i}`, 'running', new Date(now)), expired);
      await executions.insert(execution('exe_queued', 'running', new Date(now)), NO_LEASE);
      await executions.insert(execution('exe_live', 'running', new Date(now)), {
        owner: 'live-replica',
        until: new Date(now + MINUTE),
      });

      const seen = recordQueryShapes(connection);
      const until = new Date(now + MINUTE);
      const takeAll = async (repo: ExecutionRepository, owner: string) => {
        const taken: string[] = [];
        for (;;) {
          const claimed = await repo.claimExpired(owner, new Date(), until);
          if (!claimed) return taken;
          taken.push(claimed.execution.id);
        }
      };
      const [one, two] = await Promise.all([takeAll(executions, 'a'), takeAll(replica, 'b')]);
      connection.set('debug', false);

      const taken = [...one, ...two];
      expect(taken.sort()).toEqual([...Array.from({ length: 6 }, (_, i) => `exe_exp_${i}`), 'exe_queued'].sort());
      expect(new Set(taken).size).toBe(taken.length);
      const claims = await connection
        .collection('executions')
        .find({ _id: { $in: taken } as never }, { projection: { claims: 1, lease_owner: 1 } })
        .toArray();
      for (const doc of claims) expect(doc.claims).toBe(1);
      // Taken over: not due again until the new lease ends; the live one was never touched.
      expect(await executions.claimExpired('c', new Date(), until)).toBeUndefined();
      expect((await executions.get('ten_1', 'wf_1', 'exe_live'))?.status).toBe('running');

      // Every call on the executions is an index lookup; only the due entries are paged by a range.
      // (Which replica tidies the entries the other moved depends on the race: bulkWrite may be absent.)
      const calls = verdicts(connection, seen);
      expect(calls).toEqual(
        expect.arrayContaining([
          'execution_due.find(due_at) -> due_at,_id',
          'execution_due.updateOne(_id) -> _id (stand-in: index)',
          'executions.find(_id) -> _id (stand-in: index)',
          'executions.findOneAndUpdate(_id,status,lease_until) -> _id (stand-in: index)',
        ]),
      );
      expect(calls.filter((c) => !c.startsWith('execution_due.find('))).toEqual(
        calls.filter((c) => c.endsWith('(stand-in: index)')),
      );
    } finally {
      await other.close();
    }
  });

  it('drops the due entry when a run ends, and finds a run handed back at once', async () => {
    const { executions, connection } = store;
    const now = new Date();
    await executions.insert(execution('exe_end', 'running', now), {
      owner: 'me',
      until: new Date(now.getTime() + MINUTE),
    });
    await executions.insert(execution('exe_back', 'running', now), {
      owner: 'me',
      until: new Date(now.getTime() + MINUTE),
    });
    const due = connection.collection('execution_due');
    expect(await due.countDocuments({ _id: { $in: ['exe_end', 'exe_back'] } as never })).toBe(2);

    expect(await executions.save({ id: 'exe_end' }, 'me', { status: 'completed' }, { releaseLease: true })).toBe(true);
    expect(await due.countDocuments({ _id: 'exe_end' as never })).toBe(0);

    await executions.releaseLeases('me', ['exe_back']);
    const claimed = await executions.claimExpired('other', new Date(), new Date(Date.now() + MINUTE));
    expect(claimed?.execution.id).toBe('exe_back');
  });

  it("counts a tenant's running runs from their due entries, not from the history", async () => {
    const { executions, connection } = store;
    const now = new Date();
    const lease = { owner: 'me', until: new Date(now.getTime() + MINUTE) };
    const run = (id: string, tenantId: string, status: 'running' | 'queued') => ({
      ...execution(id, status, now),
      tenantId,
    });
    for (let i = 0; i < 3; i++) await executions.insert(run(`exe_cnt_${i}`, 'ten_cnt', 'running'), lease);
    await executions.insert(run('exe_cnt_q', 'ten_cnt', 'queued'), NO_LEASE);
    await executions.insert(run('exe_cnt_other', 'ten_cnt_other', 'running'), lease);

    const seen = recordQueryShapes(connection);
    expect(await executions.countRunning('ten_cnt', 10)).toBe(3);
    expect(await executions.countRunning('ten_cnt', 2)).toBe(2);
    connection.set('debug', false);
    // The due entries hold the running runs only; the 3,000 finished ones are never read.
    expect(verdicts(connection, seen)).toEqual(['execution_due.countDocuments(tenant_id) -> tenant_id,_id']);

    // A queued run that starts counts; one that ends no longer does.
    expect(await executions.startQueued('exe_cnt_q', 'me', new Date(), lease.until)).toBeDefined();
    expect(await executions.countRunning('ten_cnt', 10)).toBe(4);
    await executions.save({ id: 'exe_cnt_0' }, 'me', { status: 'completed' }, { releaseLease: true });
    expect(await executions.countRunning('ten_cnt', 10)).toBe(3);
    expect(await executions.countRunning('ten_cnt_other', 10)).toBe(1);
  });

  it('finds due schedules and pending settles by their small collections, and advances each tick once', async () => {
    const { connection, workflows, executions } = store;
    const now = new Date();
    const tick = new Date(now.getTime() - 1_000);
    await workflows.insert(workflow('wf_due_a', tick));
    await workflows.insert(workflow('wf_due_b', new Date(tick.getTime() - 1_000)));
    await workflows.insert(workflow('wf_later', new Date(now.getTime() + 10 * MINUTE)));
    await executions.insert({ ...execution('exe_unsettled', 'completed', now), creditPending: true }, NO_LEASE);

    const seen = recordQueryShapes(connection);
    const due = await workflows.due(now, 500);
    expect(due.map((w) => w.id)).toEqual(['wf_due_b', 'wf_due_a']);
    const next = new Date(now.getTime() + MINUTE);
    await workflows.advance(due.map((w) => ({ id: w.id, from: w.nextRunAt!, to: next })));
    expect(await workflows.due(now, 500)).toEqual([]);
    expect(await executions.pendingCredits(100)).toEqual([{ id: 'exe_unsettled', tenantId: 'ten_1' }]);
    connection.set('debug', false);

    expect(verdicts(connection, seen)).toEqual([
      'credit_due.find(created_at) -> created_at,_id',
      'executions.find(_id) -> _id (stand-in: index)',
      'schedule_due.bulkWrite(_id) -> _id (stand-in: index)',
      'schedule_due.find(due_at) -> due_at,_id',
      'workflows.bulkWrite(_id,next_run_at) -> _id (stand-in: index)',
      'workflows.find(_id) -> _id (stand-in: index)',
    ]);

    // A pause (null) drops the entry at the next poll; a resume puts it back.
    await workflows.update('ten_1', 'wf_due_a', { nextRunAt: null, status: 'paused', updatedAt: new Date() });
    expect(await workflows.due(new Date(next.getTime() + 1), 500)).toEqual([
      expect.objectContaining({ id: 'wf_due_b' }),
    ]);
    const entries = connection.collection('schedule_due');
    expect(await entries.countDocuments({ _id: 'wf_due_a' as never })).toBe(0);
    await workflows.update('ten_1', 'wf_due_a', { nextRunAt: tick, status: 'active', updatedAt: new Date() });
    expect((await workflows.due(now, 500)).map((w) => w.id)).toEqual(['wf_due_a']);
  });
});
