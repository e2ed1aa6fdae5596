import type { Dispatcher } from 'undici';
import type { SecretBox } from '@agentplatform/service-kit';
import type { AgentDirectory } from '../clients/agents.client.js';
import type { JsonObject, WorkflowNode } from '../domain/workflow.types.js';
import type { ExpressionRunner } from './expression-sandbox.js';
import { NodeError, runNode, type ChildRequest, type ChildRunner } from './node-runners.js';

/** workflow and foreach nodes against a fake child runner: order, concurrency, failures, nesting. */
function children(behaviour: (request: ChildRequest) => Promise<JsonObject | Error>) {
  const seen: ChildRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const runner: ChildRunner = {
    async run(request) {
      seen.push(request);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const result = await behaviour(request);
        return result instanceof Error
          ? { executionId: `exe_${request.index}`, status: 'failed', error: result.message }
          : { executionId: `exe_${request.index}`, status: 'completed', output: result };
      } finally {
        inFlight--;
      }
    },
  };
  return { runner, seen, max: () => maxInFlight };
}

const deps = (runner: ChildRunner) => ({
  agents: {} as AgentDirectory,
  http: {} as Dispatcher,
  expressions: {} as ExpressionRunner,
  box: {} as SecretBox,
  children: runner,
});

function run(node: WorkflowNode, runner: ChildRunner, depth = 0, input: JsonObject = {}) {
  return runNode(
    {
      tenantId: 't1',
      execution: { id: 'exe_parent', depth, workflowId: 'wf_parent' },
      attempt: 1,
      node,
      scope: { input, nodes: {}, previous: { from: 'previous' } },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
    },
    deps(runner),
  );
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('foreach node', () => {
  it('runs every item with {item, index}, at most `concurrency` at once, outputs in item order', async () => {
    const fake = children(async (r) => {
      await tick();
      return { doubled: (r.input.item as number) * 2 };
    });
    const list = Array.from({ length: 50 }, (_, i) => 49 - i);
    const output = await run(
      { id: 'each', type: 'foreach', config: { workflow_id: 'wf_child', items: 'input.list', concurrency: 3 } },
      fake.runner,
      0,
      { list },
    );
    expect(output).toEqual({ results: list.map((v) => ({ doubled: v * 2 })) });
    expect(fake.max()).toBe(3);
    expect(fake.seen.map((r) => r.index).sort((a, b) => a - b)).toEqual(list.map((_, i) => i));
    expect(fake.seen[0]).toMatchObject({ depth: 1, parentExecutionId: 'exe_parent', parentNodeId: 'each' });
  });

  it('names the failed items and fails the node', async () => {
    const fake = children(async (r) => ((r.index as number) % 2 === 1 ? new Error(`bad ${r.index}`) : {}));
    await expect(
      run({ id: 'each', type: 'foreach', config: { workflow_id: 'wf_child', items: '[1, 2, 3, 4]' } }, fake.runner),
    ).rejects.toThrow(/2 of 4 items failed \(indexes 1, 3\): failed: bad 1/);
  });

  it('refuses more than 1,000 items and a value that is not a list', async () => {
    const fake = children(async () => ({}));
    const node = (items: string): WorkflowNode => ({
      id: 'each',
      type: 'foreach',
      config: { workflow_id: 'w', items },
    });
    await expect(run(node('input.list'), fake.runner, 0, { list: Array(1_001).fill(0) })).rejects.toThrow(
      /at most 1000/,
    );
    await expect(run(node('input.n'), fake.runner, 0, { n: 3 })).rejects.toThrow(/must evaluate to a list/);
    expect(fake.seen).toHaveLength(0);
  });
});

describe('workflow node', () => {
  it('passes the previous output by default and outputs the child output', async () => {
    const fake = children(async (r) => ({ got: r.input }));
    await expect(
      run({ id: 'sub', type: 'workflow', config: { workflow_id: 'wf_child' } }, fake.runner),
    ).resolves.toEqual({ got: { from: 'previous' } });
  });

  it('fails without starting a child when nesting would go deeper than 5', async () => {
    const fake = children(async () => ({}));
    const error = await run({ id: 'sub', type: 'workflow', config: { workflow_id: 'w' } }, fake.runner, 5).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NodeError);
    expect((error as NodeError).message).toMatch(/nesting deeper than 5 levels/);
    expect(fake.seen).toHaveLength(0);
    await expect(run({ id: 'sub', type: 'workflow', config: { workflow_id: 'w' } }, fake.runner, 4)).resolves.toEqual(
      {},
    );
  });
});
