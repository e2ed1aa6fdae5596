import { backoffDelay, type Logger } from '@agentplatform/service-kit';
import {
  NODE_OUTPUT_MAX_BYTES,
  OUTPUT_TOO_LARGE,
  type Execution,
  type NodeExecution,
} from '../domain/execution.types.js';
import { isInlineSafe, type ExpressionScope } from '../domain/expressions.js';
import { nodeExpressions } from '../domain/node-expressions.js';
import { CHILD_NODE_TYPES, type JsonObject, type RetryPolicy, type WorkflowNode } from '../domain/workflow.types.js';
import { NodeError, NodeTimeout, isPure, runNode, type NodeRunnerDeps } from './node-runners.js';
import { Abandoned } from './run.js';

/** What a node's attempts run with: the execution, the run's signal, the runners. */
export interface AttemptContext {
  execution: Execution;
  /** Aborts when the run is abandoned (cancelled, taken over, shutting down). */
  signal: AbortSignal;
  runners: NodeRunnerDeps;
  logger: Logger;
  defaultNodeTimeoutMs: number;
}

/** The error of a run that reached its deadline. */
export function durationExceeded(execution: Pick<Execution, 'deadlineAt' | 'startedAt'>): string {
  const ms = execution.deadlineAt.getTime() - execution.startedAt.getTime();
  return `execution exceeded its maximum duration of ${ms} ms`;
}

function staticallyBounded(node: WorkflowNode): boolean {
  return isPure(node) && nodeExpressions(node).every(isInlineSafe);
}

/** The retry policy a node's config carries (its shape checked when the workflow was saved). */
function retryInConfig(config: JsonObject): Partial<RetryPolicy> | undefined {
  const retry = config.retry;
  if (retry === null || typeof retry !== 'object' || Array.isArray(retry)) return undefined;
  return {
    ...(typeof retry.max_attempts === 'number' ? { max_attempts: retry.max_attempts } : {}),
    ...(typeof retry.backoff_ms === 'number' ? { backoff_ms: retry.backoff_ms } : {}),
  };
}

/** A node's retry policy and timeout: its own, else its config's, else the defaults. */
export function attemptOptions(
  node: WorkflowNode,
  defaultNodeTimeoutMs: number,
): { retry: RetryPolicy; timeoutMs: number } {
  const retry = node.retry ?? retryInConfig(node.config) ?? { max_attempts: 1, backoff_ms: 0 };
  const configured = node.timeout_ms ?? (node.config.timeout_ms as number | undefined);
  const fallback = defaultNodeTimeoutMs;
  // A workflow or foreach node waits for its children: by default as long as the execution may run.
  const byType = CHILD_NODE_TYPES.includes(node.type)
    ? Number.POSITIVE_INFINITY
    : node.type === 'delay'
      ? Number(node.config.ms ?? 0) + fallback
      : fallback;
  const timeoutMs = configured ?? byType;
  return { retry: { max_attempts: retry.max_attempts ?? 1, backoff_ms: retry.backoff_ms ?? 0 }, timeoutMs };
}

/**
 * Runs a node with its timeout and retries (exponential backoff from backoff_ms), within the
 * execution's deadline. Answers the node's result, completed or failed; throws Abandoned when the
 * run's signal aborts.
 */
export async function attemptNode(
  context: AttemptContext,
  node: WorkflowNode,
  scope: ExpressionScope,
  startedAt: Date,
  resumedFrom?: Date,
): Promise<NodeExecution> {
  const { execution, signal } = context;
  const { retry, timeoutMs } = attemptOptions(node, context.defaultNodeTimeoutMs);
  let lastError: NodeError | undefined;
  let attempts = 0;
  for (let attempt = 1; attempt <= retry.max_attempts; attempt++) {
    attempts = attempt;
    const remaining = execution.deadlineAt.getTime() - Date.now();
    if (remaining <= 0) {
      lastError = new NodeError(durationExceeded(execution), false);
      break;
    }
    const limit = Math.min(timeoutMs, remaining);
    // Every node is bounded, pure ones too: their CEL runs off the event loop (expression-sandbox.ts).
    // A pure node whose expressions are all under the static bound runs synchronously in
    // microseconds (node-runners.ts): it needs no timer.
    const timeout = staticallyBounded(node) ? undefined : new AbortController();
    const timer = timeout && setTimeout(() => timeout.abort(new NodeTimeout()), limit);
    try {
      const output = await runNode(
        {
          tenantId: execution.tenantId,
          execution: { id: execution.id, depth: execution.depth ?? 0, workflowId: execution.workflowId },
          attempt,
          node,
          scope,
          signal: timeout ? AbortSignal.any([signal, timeout.signal]) : signal,
          timeoutMs: limit,
          resumedFrom: attempt === 1 ? resumedFrom : undefined,
        },
        context.runners,
      );
      boundOutput(output);
      return {
        nodeId: node.id,
        status: 'completed',
        startedAt,
        durationMs: Date.now() - startedAt.getTime(),
        output,
        attempts,
      };
    } catch (error) {
      if (signal.aborted) throw new Abandoned('aborted');
      if (timeout?.signal.aborted) {
        lastError = new NodeError(
          limit < timeoutMs ? durationExceeded(execution) : `timed out after ${limit} ms`,
          limit >= timeoutMs,
        );
      } else if (error instanceof NodeError) {
        lastError = error;
      } else {
        context.logger.error({ err: error, execution_id: execution.id, node_id: node.id }, 'node failed unexpectedly');
        lastError = new NodeError(error instanceof Error ? error.message : String(error), false);
      }
    } finally {
      clearTimeout(timer);
    }
    if (!lastError.retryable || attempt === retry.max_attempts) break;
    // The node's own policy (backoff_ms, doubling), without jitter: a tenant's run is not a herd.
    await backoff(backoffDelay(attempt - 1, { baseMs: retry.backoff_ms }), signal);
  }
  return {
    nodeId: node.id,
    status: 'failed',
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    ...(lastError?.output ? { output: lastError.output } : {}),
    error: lastError?.message ?? 'failed',
    attempts,
  };
}

/** Fails the node (not retried: the same work gives the same output) when its output is too large to store. */
function boundOutput(output: JsonObject): void {
  const bytes = Buffer.byteLength(JSON.stringify(output));
  if (bytes <= NODE_OUTPUT_MAX_BYTES) return;
  throw new NodeError(
    `${OUTPUT_TOO_LARGE}: the node's output is ${bytes} bytes, over the limit of ${NODE_OUTPUT_MAX_BYTES}`,
    false,
    { error: { code: OUTPUT_TOO_LARGE, size_bytes: bytes, limit_bytes: NODE_OUTPUT_MAX_BYTES } },
  );
}

/** Waits between attempts; an abort of the run ends the wait (and the run) at once. */
function backoff(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Abandoned('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
