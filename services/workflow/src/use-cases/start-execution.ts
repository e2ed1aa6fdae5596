import { isDuplicateKeyError, newId } from '@agentplatform/service-kit';
import type { Execution, ExecutionTrigger } from '../domain/execution.types.js';
import type { JsonObject, Workflow } from '../domain/workflow.types.js';
import type { WhenBusy } from '../engine/execution-engine.js';
import type { UseCaseDeps } from './deps.js';
import { settleRunCredit } from './settle-run-credits.js';

/**
 * What a run may be started with besides its workflow: a chosen id (child runs, named from their
 * parent so a resumed parent finds its child again), another graph than the workflow's current
 * one and the results to resume from (retry), and its place in a composition.
 */
export type ExecutionSeed = Partial<
  Pick<
    Execution,
    'id' | 'graph' | 'workflowVersion' | 'nodeExecutions' | 'parentExecutionId' | 'parentNodeId' | 'depth' | 'retryOf'
  >
>;

/** The workflow names the tenant; `input` is the run's input. */
export interface StartExecutionInput {
  workflow: Workflow;
  trigger: ExecutionTrigger;
  input: JsonObject;
  runFirst: boolean;
  seed?: ExecutionSeed;
  /**
   * What happens while the tenant has its plan's executions in flight: `queue` (hooks and
   * schedules: stored queued, started in turn), a child's wait for room, or `start` (the default:
   * manual runs, which their use case refused over the bound).
   */
  whenBusy?: WhenBusy;
}

/**
 * Starts a run: reserves its credit (402 when the balance is too low), stores the execution with a
 * snapshot of the graph and hands it to the engine, which runs it at once on this replica (or
 * queues it, or waits for room, as `whenBusy` says); then
 * settles the credit, or releases it when the run could not be started. The run is stored marked
 * as not settled, so the settle job charges it if identity cannot confirm the settle now. With
 * `runFirst` a graph of pure nodes is finished before it is stored (ExecutionEngine.submit).
 * Answers the execution as it stands then: queued, running, or already finished.
 */
export async function startExecution(
  deps: Pick<UseCaseDeps, 'engine' | 'credits' | 'executions' | 'logger' | 'settings'>,
  start: StartExecutionInput,
): Promise<Execution> {
  const { workflow, trigger, input, runFirst } = start;
  const seed = start.seed ?? {};
  // A child run, or a scheduled tick (its id is chosen when it is claimed, so a replica that takes
  // over a dead one's claim starts the same execution, stored and charged at most once).
  const id = seed.id ?? newId('exe');
  await deps.credits.reserveRun(workflow.tenantId, id, workflow.id);
  const now = new Date();
  const execution: Execution = {
    id,
    tenantId: workflow.tenantId,
    workflowId: workflow.id,
    status: 'running',
    trigger,
    input,
    ...seed,
    graph: seed.graph ?? { nodes: workflow.nodes, edges: workflow.edges },
    workflowVersion: seed.workflowVersion ?? workflow.version,
    nodeExecutions: seed.nodeExecutions ?? [],
    startedAt: now,
    deadlineAt: new Date(now.getTime() + deps.settings.maxExecutionDurationMs),
    startedEvent: false,
    creditPending: true,
  };
  let started: Execution;
  try {
    started = await deps.engine.submit(execution, { runFirst, whenBusy: start.whenBusy });
  } catch (error) {
    // The id is taken: the same run was started already (and holds the credit).
    if (isDuplicateKeyError(error)) throw error;
    await deps.credits.releaseRun(workflow.tenantId, id).catch((releaseError) => {
      deps.logger.warn(
        { err: releaseError, execution_id: id },
        'could not release the credit of a run that did not start; its reservation expires',
      );
    });
    throw error;
  }
  // Not awaited: the run is answered now; the settle job retries whatever this does not finish.
  settleRunCredit(deps, { tenantId: workflow.tenantId, id }).catch((error) =>
    deps.logger.warn({ err: error, execution_id: id }, 'run credit not marked settled yet; the settle job retries'),
  );
  return started;
}
