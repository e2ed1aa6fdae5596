import { setTimeout as sleep } from 'node:timers/promises';
import mongoose from 'mongoose';
import { startPlatform, suiteFixture } from '@agentplatform/testing';
import type { ExecutionDocument } from '../src/persistence/execution.schema';
import type { WorkflowDocument } from '../src/persistence/workflow.schema';
import { storedExecution, storedWorkflow } from './store.support';

const DAY = 86_400_000;

/** `mongo_commands_total` of a service's /metrics, by `collection.command`. */
async function commands(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const [, labels, value] of text.matchAll(/^mongo_commands_total\{([^}]*)\} (\d+)/gm)) {
    const collection = /collection="([^"]*)"/.exec(labels!)?.[1];
    const command = /command="([^"]*)"/.exec(labels!)?.[1];
    counts.set(`${collection}.${command}`, Number(value));
  }
  return counts;
}

/**
 * An idle workflow service on a long history (issue 38): its pollers (the lease takeover every
 * 100 ms here, the scheduler's, the settle job's) ask only their small due collections, so the
 * stand-in never scans the executions and workflows it keeps, however many there are.
 */
describe('an idle workflow service on a long history', () => {
  const platform = suiteFixture(() =>
    startPlatform({
      services: ['identity', 'workflow'],
      serviceEnv: {
        workflow: {
          EXECUTION_POLL_INTERVAL_MS: '100',
          SCHEDULER_POLL_INTERVAL_MS: '100',
          CREDIT_SETTLE_INTERVAL_MS: '200',
        },
      },
    }),
  );

  it('polls its due collections, and sends no call to the executions or workflows while idle', async () => {
    const connection = await mongoose
      .createConnection(platform.mongoUri, { dbName: platform.database('workflow') })
      .asPromise();
    try {
      const at = new Date(Date.now() - DAY);
      for (let batch = 0; batch < 5; batch++) {
        const ids = Array.from({ length: 1_000 }, (_, i) => `${batch}_${i}`);
        await connection
          .collection<ExecutionDocument>('executions')
          .insertMany(ids.map((id) => storedExecution(`exe_old_${id}`, 'ten_old', 'wf_old_0_0', at)));
        await connection
          .collection<WorkflowDocument>('workflows')
          .insertMany(ids.map((id) => storedWorkflow(`wf_old_${id}`, 'ten_old', at)));
      }
    } finally {
      await connection.close();
    }
    // Past the retention job's first pass (5 s after start), which reads the executions once.
    await sleep(6_000);

    const port = platform.service('workflow').ready!.metrics_port!;
    const before = await commands(port);
    await sleep(3_000);
    const after = await commands(port);
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    const on = (collection: string) =>
      [...after.keys()].filter((key) => key.startsWith(`${collection}.`) && delta(key) > 0);

    // About 30 polls of each in the 3 s (fewer when the machine is loaded), none on the history.
    expect(delta('execution_due.find')).toBeGreaterThan(5);
    expect(delta('schedule_due.find')).toBeGreaterThan(5);
    expect(delta('credit_due.find')).toBeGreaterThan(2);
    expect(on('executions')).toEqual([]);
    expect(on('workflows')).toEqual([]);
  });
});
