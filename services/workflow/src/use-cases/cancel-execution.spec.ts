import type { Outbox } from '@agentplatform/events';
import type { Execution } from '../domain/execution.types.js';
import type { ExecutionEngine } from '../engine/execution-engine.js';
import type { ExecutionRepository } from '../persistence/execution.repository.js';
import { cancelExecution } from './cancel-execution.js';

/** The use case against fakes: its write and its events share the outbox session; retries are not conflicts. */
function setup(status: Execution['status']) {
  const session = { id: 'session-1' };
  const sessions: unknown[] = [];
  const stored: string[] = [];
  let doc = { id: 'exe_1', tenantId: 't1', workflowId: 'wf_1', status, trigger: 'manual', startedEvent: true };
  const executions = {
    async cancel(_t: string, _w: string, _id: string, _now: Date, s?: unknown) {
      sessions.push(s);
      if (doc.status !== 'running') return undefined;
      doc = { ...doc, status: 'cancelled' };
      return doc;
    },
    async get() {
      return doc;
    },
    async runningChildren() {
      return [];
    },
  } as unknown as ExecutionRepository;
  const outbox = {
    async run<T>(work: (s: unknown) => Promise<{ result: T; events: Array<{ type: string }> }>) {
      const outcome = await work(session);
      stored.push(...outcome.events.map((e) => e.type));
      return outcome.result;
    },
  } as unknown as Outbox;
  const engine = { abandon: () => undefined } as unknown as ExecutionEngine;
  const input = { tenantId: 't1', workflowId: 'wf_1', executionId: 'exe_1' };
  return { deps: { executions, outbox, engine }, input, session, sessions, stored };
}

describe('cancelExecution', () => {
  it('writes the cancellation inside the outbox session that stores its event', async () => {
    const { deps, input, session, sessions, stored } = setup('running');
    await expect(cancelExecution(deps, input)).resolves.toMatchObject({ status: 'cancelled' });
    expect(sessions).toEqual([session]);
    expect(stored).toEqual(['workflow.execution.failed']);
  });

  it('answers a retry with the cancelled execution and publishes nothing again', async () => {
    const { deps, input, stored } = setup('running');
    await cancelExecution(deps, input);
    await expect(cancelExecution(deps, input)).resolves.toMatchObject({ status: 'cancelled' });
    expect(stored).toEqual(['workflow.execution.failed']);
  });

  it('refuses an execution that finished first', async () => {
    const { deps, input } = setup('completed');
    await expect(cancelExecution(deps, input)).rejects.toThrow('Execution is already completed');
  });
});
