import { createHash } from 'node:crypto';
import { DomainError, InsufficientCreditsError, isDuplicateKeyError } from '@agentplatform/service-kit';
import { isFinished, type Execution } from '../domain/execution.types.js';
import {
  NodeError,
  NodeTimeout,
  type ChildOutcome,
  type ChildRequest,
  type ChildRunner,
} from '../engine/node-runners.js';
import { cancelExecution } from './cancel-execution.js';
import type { UseCaseDeps } from './deps.js';
import { startExecution } from './start-execution.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A child's execution id, derived from its parent, node, attempt and item: a parent resumed after
 * a crash finds the child it started instead of starting (and charging) a second one. Shaped like
 * the other execution ids (`exe_` and 26 Crockford base32 characters).
 */
export function childExecutionId(parentExecutionId: string, nodeId: string, attempt: number, index: number): string {
  const digest = createHash('sha256')
    .update(`${parentExecutionId}\u0000${nodeId}\u0000${attempt}\u0000${index}`)
    .digest();
  let out = '';
  for (let i = 0; i < 26; i++) out += CROCKFORD[digest[i]! % 32];
  return `exe_${out}`;
}

/** How long one wait for a child lasts before the parent's signal and the parent's state are looked at again. */
const WAIT_SLICE_MS = 5_000;

function toChildOutcome(execution: Execution): ChildOutcome {
  return {
    executionId: execution.id,
    status: execution.status === 'completed' || execution.status === 'cancelled' ? execution.status : 'failed',
    ...(execution.output ? { output: execution.output } : {}),
    ...(execution.error ? { error: execution.error } : {}),
  };
}

/** Settles when the signal aborts; `dispose` removes its listener (a foreach waits on one signal per item). */
function aborted(signal: AbortSignal): { promise: Promise<void>; dispose: () => void } {
  let onAbort = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    onAbort = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * Child runs for workflow and foreach nodes. A child is a run like any other: it costs a credit
 * (startExecution), has its own lease and survives a crash of the replica that runs it. Its id is
 * derived from the parent (childExecutionId), so the parent's node, repeated after a crash, finds
 * the child again and only waits for it.
 *
 * When the parent's node stops waiting, the child is cancelled if the node timed out or the parent
 * was cancelled; a parent handed to another replica (shutdown, lost lease) leaves it running for
 * the parent's new owner to find.
 */
export function childRunner(deps: () => UseCaseDeps): ChildRunner {
  async function start(request: ChildRequest, id: string): Promise<Execution> {
    const d = deps();
    const workflow = await d.workflows.get(request.tenantId, request.workflowId);
    if (!workflow) throw new NodeError(`workflow '${request.workflowId}' not found`, false);
    if (workflow.status === 'paused') throw new NodeError(`workflow '${request.workflowId}' is paused`, false);
    try {
      return await startExecution(d, {
        workflow,
        trigger: 'manual',
        input: request.input,
        // A graph of pure nodes finishes before it is stored: one write per child.
        runFirst: true,
        seed: {
          id,
          parentExecutionId: request.parentExecutionId,
          parentNodeId: request.parentNodeId,
          depth: request.depth,
        },
        // A fan-out is never refused for its own children: they wait for their turn.
        whenBusy: { waitForRoom: request.signal },
      });
    } catch (error) {
      if (isDuplicateKeyError(error)) {
        const existing = await d.executions.getById(request.tenantId, id);
        if (existing) return existing;
      }
      if (error instanceof InsufficientCreditsError) {
        throw new NodeError(`could not start workflow '${request.workflowId}': ${error.message}`, false);
      }
      if (error instanceof DomainError) {
        throw new NodeError(`could not start workflow '${request.workflowId}': ${error.message}`, true);
      }
      throw error;
    }
  }

  async function stopChild(request: ChildRequest, child: Execution): Promise<void> {
    const d = deps();
    const timedOut = request.signal.reason instanceof NodeTimeout;
    if (!timedOut) {
      const parent = await d.executions.getById(request.tenantId, request.parentExecutionId);
      if (parent?.status !== 'cancelled') return;
    }
    await cancelExecution(d, {
      tenantId: child.tenantId,
      workflowId: child.workflowId,
      executionId: child.id,
    }).catch((error: unknown) => {
      d.logger.warn({ err: error, execution_id: child.id }, 'could not cancel a child execution');
    });
  }

  return {
    async run(request) {
      const d = deps();
      const id = childExecutionId(request.parentExecutionId, request.parentNodeId, request.attempt, request.index);
      // Only a node repeated after a crash can have started its children already; a first run that
      // races another replica for the same child meets it as a duplicate id in start().
      const existing = request.resumed ? await d.executions.getById(request.tenantId, id) : undefined;
      let child = existing ?? (await start(request, id));
      if (isFinished(child.status)) return toChildOutcome(child);
      const stop = aborted(request.signal);
      try {
        while (!isFinished(child.status)) {
          if (request.signal.aborted) {
            await stopChild(request, child);
            throw request.signal.reason;
          }
          const current = await Promise.race([
            d.engine.waitFor(child.tenantId, child.workflowId, child.id, WAIT_SLICE_MS),
            stop.promise.then(() => child),
          ]);
          if (request.signal.aborted) continue;
          if (!current) throw new NodeError(`child execution ${id} disappeared`, false);
          child = current;
        }
      } finally {
        stop.dispose();
      }
      return toChildOutcome(child);
    },
  };
}
