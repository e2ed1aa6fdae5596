import { failSpan, traced, type Logger } from '@agentplatform/service-kit';
import type { Execution, NodeExecution } from '../domain/execution.types.js';
import { planGraph, type Plan } from '../domain/graph.js';
import type { JsonObject } from '../domain/workflow.types.js';
import type { Checkpointer, RunEnd } from './checkpointer.js';
import { attemptNode, durationExceeded } from './node-attempts.js';
import { isPure, isSafeToRepeat, waitsForChildren, type NodeRunnerDeps } from './node-runners.js';
import { Abandoned, type Run } from './run.js';

export interface StepperDeps {
  runners: NodeRunnerDeps;
  logger: Logger;
  defaultNodeTimeoutMs: number;
}

/**
 * Steps one run through its graph: each node in plan order that has no result yet, skipped when no
 * active predecessor leads to it, else attempted (node-attempts.ts) on the data its latest active
 * predecessor produced. What the run has done is written through the checkpointer: a marker before
 * a node with side effects or a wait and its result after it; pure nodes (webhook, transform,
 * condition) are batched into the next write, since repeating them after a crash yields the same
 * result. A node interrupted by a crash runs again only when that is safe (node-runners.ts).
 */
export class Stepper {
  private readonly execution: Execution;
  private readonly plan: Plan;
  private readonly results = new Map<string, NodeExecution>();
  private readonly outputs = new Map<string, JsonObject>();
  /** Node ids in the order they finished (the latest completed predecessor feeds a join). */
  private readonly finished: string[] = [];
  private readonly dataMemo = new Map<string, JsonObject>();

  constructor(
    private readonly run: Run,
    private readonly checkpoints: Checkpointer,
    private readonly deps: StepperDeps,
  ) {
    this.execution = run.execution;
    this.plan = planGraph(this.execution.graph);
    for (const result of this.execution.nodeExecutions) this.record(result);
  }

  private get signal(): AbortSignal {
    return this.run.controller.signal;
  }

  /** Runs the execution's remaining nodes, a span around the run and one per node (tracing on). */
  drive(): Promise<void> {
    const execution = this.execution;
    return traced(
      'workflow execution',
      {
        attributes: {
          'agentplatform.workflow.id': execution.workflowId,
          'agentplatform.execution.id': execution.id,
          'agentplatform.tenant.id': execution.tenantId,
        },
      },
      () => this.driveNodes(),
    );
  }

  private async driveNodes(): Promise<void> {
    const execution = this.execution;
    for (const node of this.plan.order) {
      if (this.results.has(node.id)) continue;
      if (this.signal.aborted) throw new Abandoned('aborted');
      if (Date.now() >= execution.deadlineAt.getTime()) {
        return this.finish({ status: 'failed', error: durationExceeded(execution), failedNodeId: node.id });
      }
      const predecessors = this.plan.predecessors.get(node.id) ?? [];
      const active = predecessors.filter((p) => this.takesBranch(p, node.id));
      if (predecessors.length > 0 && active.length === 0) {
        this.record({ nodeId: node.id, status: 'skipped', durationMs: 0, attempts: 0 });
        continue;
      }
      const interrupted = execution.inFlight?.nodeId === node.id ? execution.inFlight : undefined;
      if (interrupted && !isSafeToRepeat(node)) {
        this.record({
          nodeId: node.id,
          status: 'failed',
          startedAt: interrupted.startedAt,
          durationMs: 0,
          attempts: 1,
          error: 'interrupted by a service restart; not safe to repeat',
        });
        return this.finish({
          status: 'failed',
          error: `node '${node.id}' was interrupted by a service restart and is not safe to repeat`,
          failedNodeId: node.id,
        });
      }
      const previous = this.inputFor(active);
      const pure = isPure(node);
      const startedAt = interrupted?.startedAt ?? new Date();
      if (!pure) await this.checkpoints.progress(this.resultList(), { nodeId: node.id, startedAt });

      const scope = { input: execution.input, nodes: Object.fromEntries(this.outputs), previous };
      const context = { execution, signal: this.signal, ...this.deps };
      const result = await traced(
        `workflow node ${node.type}`,
        { attributes: { 'agentplatform.node.id': node.id, 'agentplatform.node.type': node.type } },
        async (span) => {
          const attempt = () => attemptNode(context, node, scope, startedAt, interrupted?.startedAt);
          // A parent waiting for its child runs gives its slot to them meanwhile.
          const outcome = waitsForChildren(node) ? await this.run.slot.outside(attempt) : await attempt();
          span?.setAttribute('agentplatform.node.attempts', outcome.attempts);
          if (outcome.status === 'failed') failSpan(span, new Error(outcome.error ?? 'failed'));
          return outcome;
        },
      );
      this.record(result);
      if (result.status === 'failed') {
        return this.finish({
          status: 'failed',
          error: `node '${node.id}' failed: ${result.error ?? 'unknown error'}`,
          failedNodeId: node.id,
        });
      }
      if (!pure) await this.checkpoints.progress(this.resultList(), 'clear');
    }
    await this.finish({ status: 'completed' });
  }

  /** Ends the run as failed without running anything more (it was taken over too often). */
  fail(error: string, failedNodeId?: string): Promise<void> {
    return this.finish({ status: 'failed', error, failedNodeId: failedNodeId });
  }

  /** Ends the run; its output is the latest completed node's unless the end names one. */
  private finish(end: Omit<RunEnd, 'output'> & { output?: JsonObject }): Promise<void> {
    return this.checkpoints.finish(this.resultList(), { ...end, output: end.output ?? this.lastOutput() });
  }

  private resultList(): NodeExecution[] {
    return [...this.results.values()];
  }

  /** Whether a finished predecessor leads to `target` (a condition only to the branch it chose). */
  private takesBranch(predecessor: string, target: string): boolean {
    const result = this.results.get(predecessor);
    if (result?.status !== 'completed') return false;
    if (this.plan.byId.get(predecessor)?.type !== 'condition') return true;
    return result.output?.goto === target;
  }

  /**
   * The data a node works on: the execution's input for a start node, else the output of its
   * latest finished active predecessor. A condition passes its own input through to its branch.
   */
  private inputFor(active: string[]): JsonObject {
    if (active.length === 0) return this.execution.input;
    const latest = active.reduce((a, b) => (this.finished.indexOf(a) > this.finished.indexOf(b) ? a : b));
    return this.dataOf(latest);
  }

  private dataOf(nodeId: string): JsonObject {
    const node = this.plan.byId.get(nodeId)!;
    if (node.type !== 'condition') return this.outputs.get(nodeId) ?? {};
    const memo = this.dataMemo.get(nodeId);
    if (memo) return memo;
    const active = (this.plan.predecessors.get(nodeId) ?? []).filter((p) => this.takesBranch(p, nodeId));
    const data = this.inputFor(active);
    this.dataMemo.set(nodeId, data);
    return data;
  }

  private record(result: NodeExecution): void {
    this.results.set(result.nodeId, result);
    this.finished.push(result.nodeId);
    if (result.status === 'completed') this.outputs.set(result.nodeId, result.output ?? {});
  }

  private lastOutput(): JsonObject {
    const last = [...this.finished].reverse().find((id) => this.results.get(id)?.status === 'completed');
    return last ? (this.outputs.get(last) ?? {}) : {};
  }
}
