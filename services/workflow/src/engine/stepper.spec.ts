import { DomainError, SecretBox, createGuardedAgent, createLogger } from '@agentplatform/service-kit';
import { InMemoryOutbox } from '@agentplatform/testing/in-memory';
import type { Execution } from '../domain/execution.types.js';
import type { WorkflowEdge, WorkflowNode } from '../domain/workflow.types.js';
import { InMemoryAgents, InMemoryExecutions, inlineExpressions, newExecution } from '../testing/in-memory.js';
import { Checkpointer } from './checkpointer.js';
import { detachedRun } from './run.js';
import { Stepper } from './stepper.js';

const OWNER = 'replica-a';

/** Runs a stored execution this replica holds through the stepper, over the in-memory ports. */
async function step(execution: Execution, agents = new InMemoryAgents()) {
  const store = new InMemoryExecutions();
  const outbox = new InMemoryOutbox();
  await store.insert(execution, { owner: OWNER, until: new Date(Date.now() + 60_000) });
  const checkpoints = new Checkpointer(execution, { store, outbox, owner: OWNER });
  const runners = {
    agents,
    http: createGuardedAgent({ allowPrivate: false }),
    expressions: inlineExpressions,
    box: SecretBox.fromKeyring(SecretBox.generateKeyring()),
  };
  const stepper = new Stepper(detachedRun(execution), checkpoints, {
    runners,
    logger: createLogger('stepper-test', 'silent'),
    defaultNodeTimeoutMs: 5_000,
  });
  await stepper.drive();
  return { stored: store.byId.get(execution.id)!, store, outbox, agents };
}

const statuses = (execution: Execution) =>
  Object.fromEntries(execution.nodeExecutions.map((n) => [n.nodeId, n.status]));

describe('Stepper', () => {
  it('follows the branch a condition chose, skips the other, and hands the condition its input on', async () => {
    const nodes: WorkflowNode[] = [
      { id: 'check', type: 'condition', config: { rules: [{ if: 'input.n > 0', goto: 'yes' }, { else: 'no' }] } },
      { id: 'yes', type: 'transform', config: { fields: { got: 'n' } } },
      { id: 'no', type: 'transform', config: { fields: { got: '0' } } },
    ];
    const edges: WorkflowEdge[] = [
      { source: 'check', target: 'yes' },
      { source: 'check', target: 'no' },
    ];
    const { stored } = await step(newExecution(nodes, { graph: { nodes, edges }, input: { n: 7 } }));
    expect(statuses(stored)).toEqual({ check: 'completed', yes: 'completed', no: 'skipped' });
    expect(stored).toMatchObject({ status: 'completed', output: { got: 7 } });
  });

  it('marks a node with side effects before it runs and batches pure nodes into the next write', async () => {
    const execution = newExecution([
      { id: 'a', type: 'transform', config: { fields: { m: 'input.n + 1' } } },
      { id: 'wait', type: 'delay', config: { ms: 1 } },
      { id: 'b', type: 'transform', config: {} },
    ]);
    const { store, outbox } = await step(execution);
    const saves = store.writes.filter((w) => w.kind === 'save').map((w) => w.changes!);
    // Before the delay: a's result and the marker; after it: the delay's result; then the end.
    expect(saves.map((c) => c.nodeExecutions?.map((n) => n.nodeId))).toEqual([
      ['a'],
      ['a', 'wait'],
      ['a', 'wait', 'b'],
    ]);
    expect(saves[0]!.inFlight).toMatchObject({ nodeId: 'wait' });
    expect(saves[2]).toMatchObject({ status: 'completed', output: { m: 2 } });
    expect(outbox.types()).toEqual(['workflow.execution.started', 'workflow.execution.completed']);
  });

  it('resumes after a crash from the stored results, feeding the next node their output', async () => {
    const execution = newExecution(
      [
        { id: 'a', type: 'transform', config: { fields: { m: 'input.n + 1' } } },
        { id: 'b', type: 'transform', config: { fields: { m: 'm * 10' } } },
      ],
      { nodeExecutions: [{ nodeId: 'a', status: 'completed', durationMs: 1, output: { m: 41 }, attempts: 1 }] },
    );
    const { stored } = await step(execution);
    expect(stored.error).toBeUndefined();
    expect(stored).toMatchObject({ status: 'completed', output: { m: 410 } });
    expect(stored.nodeExecutions.map((n) => n.nodeId)).toEqual(['a', 'b']);
  });

  it('fails an agent node a crash interrupted instead of chatting (and charging) twice', async () => {
    const agents = new InMemoryAgents();
    agents.add('t1', 'agt_1');
    const startedAt = new Date(Date.now() - 1_000);
    const execution = newExecution([{ id: 'chat', type: 'agent', config: { agent_id: 'agt_1' } }], {
      inFlight: { nodeId: 'chat', startedAt },
    });
    const { stored } = await step(execution, agents);
    expect(agents.chats).toHaveLength(0);
    expect(stored).toMatchObject({
      status: 'failed',
      failedNodeId: 'chat',
      error: "node 'chat' was interrupted by a service restart and is not safe to repeat",
    });
    expect(stored.nodeExecutions[0]).toMatchObject({ nodeId: 'chat', status: 'failed', startedAt });
  });

  it('retries a node whose failure may pass, and records the attempts', async () => {
    const agents = new InMemoryAgents();
    agents.add('t1', 'agt_1');
    agents.script.push(new DomainError('service_unavailable', 'agent-memory is restarting'), { content: 'hello' });
    const execution = newExecution([
      { id: 'chat', type: 'agent', retry: { max_attempts: 3, backoff_ms: 1 }, config: { agent_id: 'agt_1' } },
    ]);
    const { stored } = await step(execution, agents);
    expect(agents.chats).toHaveLength(2);
    expect(stored.nodeExecutions[0]).toMatchObject({ status: 'completed', attempts: 2, output: { content: 'hello' } });
  });

  it('does not retry a failure that cannot pass, and fails the run naming the node', async () => {
    const agents = new InMemoryAgents();
    const execution = newExecution([
      { id: 'chat', type: 'agent', retry: { max_attempts: 3, backoff_ms: 1 }, config: { agent_id: 'agt_gone' } },
    ]);
    const { stored, outbox } = await step(execution, agents);
    expect(agents.chats).toHaveLength(1);
    expect(stored).toMatchObject({ status: 'failed', failedNodeId: 'chat' });
    expect(stored.error).toMatch(/^node 'chat' failed: agent chat failed \(not_found\)/);
    expect(outbox.types()).toEqual(['workflow.execution.started', 'workflow.execution.failed']);
  });
});
