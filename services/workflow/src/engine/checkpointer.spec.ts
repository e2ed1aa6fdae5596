import { InMemoryOutbox } from '@agentplatform/testing/in-memory';
import type { EventEnvelope } from '@agentplatform/events';
import type { NodeExecution } from '../domain/execution.types.js';
import type { JsonObject } from '../domain/workflow.types.js';
import { InMemoryExecutions, newExecution } from '../testing/in-memory.js';
import { Checkpointer } from './checkpointer.js';
import { Abandoned } from './run.js';

const OWNER = 'replica-a';
const done = (nodeId: string, output: JsonObject = { [nodeId]: true }): NodeExecution => ({
  nodeId,
  status: 'completed',
  durationMs: 1,
  output,
  attempts: 1,
});

/** A stored execution this replica holds, and its checkpointer. */
async function held() {
  const store = new InMemoryExecutions();
  const outbox = new InMemoryOutbox();
  const execution = newExecution([
    { id: 'a', type: 'transform', config: {} },
    { id: 'wait', type: 'delay', config: { ms: 10 } },
  ]);
  await store.insert(execution, { owner: OWNER, until: new Date(Date.now() + 60_000) });
  const checkpoints = new Checkpointer(execution, { store, outbox, owner: OWNER });
  return { store, outbox, execution, checkpoints };
}

describe('Checkpointer', () => {
  it('announces the start with the first write only, and marks the node in flight', async () => {
    const { store, outbox, execution, checkpoints } = await held();
    const startedAt = new Date();
    await checkpoints.progress([done('a')], { nodeId: 'wait', startedAt });
    await checkpoints.progress([done('a'), done('wait')], 'clear');
    expect(outbox.types()).toEqual(['workflow.execution.started']);
    const stored = store.byId.get(execution.id)!;
    expect(stored.nodeExecutions.map((n) => n.nodeId)).toEqual(['a', 'wait']);
    expect(stored.inFlight).toBeUndefined();
    expect(stored.startedEvent).toBe(true);
    expect(store.writes.filter((w) => w.kind === 'save')[0]!.changes).toMatchObject({
      inFlight: { nodeId: 'wait', startedAt },
    });
  });

  it('finishes with the end event, the output and the lease given up', async () => {
    const { store, outbox, execution, checkpoints } = await held();
    await checkpoints.progress([done('a')], { nodeId: 'wait', startedAt: new Date() });
    await checkpoints.finish([done('a'), done('wait', { x: 1 })], { status: 'completed', output: { x: 1 } });
    expect(outbox.types()).toEqual(['workflow.execution.started', 'workflow.execution.completed']);
    expect((outbox.events[1] as EventEnvelope).data).toMatchObject({ execution_id: execution.id, output: { x: 1 } });
    expect(store.byId.get(execution.id)).toMatchObject({ status: 'completed', output: { x: 1 } });
    expect(store.byId.get(execution.id)!.inFlight).toBeUndefined();
    expect(store.ownerOf(execution.id)).toBeNull();
    // The run's own copy reads as stored.
    expect(execution).toMatchObject({ status: 'completed', startedEvent: true });
  });

  it('leaves an output over 256 KiB out of the completed event, which points at the execution instead', async () => {
    const { store, outbox, execution, checkpoints } = await held();
    const atLimit = { s: 'x'.repeat(256 * 1024 - 8) }; // `{"s":"` and `"}` make it 256 KiB exactly
    const over = { s: 'x'.repeat(256 * 1024 - 7) };
    const url = `/api/v1/workflows/${execution.workflowId}/executions/${execution.id}`;

    await checkpoints.finish([done('a', over)], { status: 'completed', output: over });
    const data = (outbox.events[1] as EventEnvelope<'workflow.execution.completed'>).data;
    expect(data).toMatchObject({ execution_id: execution.id, output_truncated: true, execution_url: url });
    expect(data).not.toHaveProperty('output');
    expect(store.byId.get(execution.id)!.output).toEqual(over);

    const again = await held();
    await again.checkpoints.finish([done('a', atLimit)], { status: 'completed', output: atLimit });
    expect((again.outbox.events[1] as EventEnvelope<'workflow.execution.completed'>).data).toMatchObject({
      output: atLimit,
      output_truncated: false,
    });
  });

  it('names the failed node in the failed event', async () => {
    const { outbox, checkpoints } = await held();
    await checkpoints.finish([done('a')], { status: 'failed', output: {}, error: 'boom', failedNodeId: 'wait' });
    expect(outbox.types()).toEqual(['workflow.execution.started', 'workflow.execution.failed']);
    expect((outbox.events[1] as EventEnvelope).data).toMatchObject({ error: 'boom', failed_node_id: 'wait' });
  });

  it('writes nothing and abandons the run once the execution is no longer ours', async () => {
    const { store, outbox, execution, checkpoints } = await held();
    await store.cancel(execution.tenantId, execution.workflowId, execution.id, new Date());
    await expect(checkpoints.progress([done('a')], 'clear')).rejects.toBeInstanceOf(Abandoned);
    await expect(checkpoints.finish([done('a')], { status: 'completed', output: {} })).rejects.toBeInstanceOf(
      Abandoned,
    );
    expect(outbox.types()).toEqual([]);
    expect(store.byId.get(execution.id)).toMatchObject({ status: 'cancelled', nodeExecutions: [] });
  });

  it('stores a run-first execution once, finished, with both events and no owner', async () => {
    const store = new InMemoryExecutions();
    const outbox = new InMemoryOutbox();
    const execution = newExecution([{ id: 'a', type: 'transform', config: {} }]);
    const checkpoints = new Checkpointer(execution, { store, outbox, owner: OWNER }, { stored: false });
    await checkpoints.finish([done('a')], { status: 'completed', output: { a: true } });
    expect(store.writes.map((w) => w.kind)).toEqual(['insert']);
    expect(store.byId.get(execution.id)).toMatchObject({ status: 'completed', nodeExecutions: [{ nodeId: 'a' }] });
    expect(store.ownerOf(execution.id)).toBeNull();
    expect(outbox.types()).toEqual(['workflow.execution.started', 'workflow.execution.completed']);
  });
});
