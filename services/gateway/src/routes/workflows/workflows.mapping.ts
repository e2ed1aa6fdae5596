import type { Context } from 'koa';
import type { workflowV1 } from '@agentplatform/contracts';
import type { GatewayConfig } from '../../config.js';
import { jsonFields } from '../../http/json-fields.js';
import type { Caller } from '../../http/route.js';

/**
 * The base of hook URLs: HOOKS_URL, else the public URL's `/hooks`, else the address this request
 * came in on (so a gateway on a random port in tests, or behind a proxy with TRUSTED_PROXY_HOPS, answers
 * URLs that work). Computed here rather than in the workflow service, which cannot know it.
 */
function hooksBase(config: GatewayConfig, ctx: Context): string {
  if (config.HOOKS_URL) return config.HOOKS_URL.replace(/\/+$/, '');
  // Koa 3's ctx.origin is the Origin request header, not this server's origin.
  const origin = config.PUBLIC_URL ? config.PUBLIC_URL.replace(/\/+$/, '') : `${ctx.protocol}://${ctx.host}`;
  return `${origin}/hooks`;
}

/**
 * The hook URL's base for a caller who may see it: the URL is a bearer secret that starts runs, so
 * only roles and keys with `workflows:execute` get it (docs/workflows.md, "Hook URLs"); others
 * get `webhook_url: null`.
 */
export function visibleHooksBase(config: GatewayConfig, ctx: Context, caller: Pick<Caller, 'scopes'>): string | null {
  return caller.scopes.includes('workflows:execute') ? hooksBase(config, ctx) : null;
}

/** `"1.24s"` (docs/design.md section 7). */
function formatDuration(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}

function nodeToJson(n: workflowV1.Node) {
  return {
    id: n.id,
    type: n.type,
    config: n.config ?? {},
    ...(n.retry ? { retry: { max_attempts: n.retry.maxAttempts, backoff_ms: n.retry.backoffMs } } : {}),
    ...(n.timeoutMs !== undefined ? { timeout_ms: n.timeoutMs } : {}),
  };
}

/** `base`: visibleHooksBase (null hides the hook URL). */
export function workflowToJson(w: workflowV1.Workflow, base: string | null) {
  return {
    ...workflowSummaryToJson(w),
    nodes: w.nodes.map(nodeToJson),
    edges: w.edges.map((e) => ({ source: e.source, target: e.target })),
    webhook_url: base === null ? null : `${base}/${w.webhookPath}`,
    ...(w.statistics
      ? {
          statistics: {
            total_runs: w.statistics.totalRuns,
            success_rate: w.statistics.successRate,
            avg_duration: formatDuration(w.statistics.avgDurationMs),
          },
        }
      : {}),
    version: w.version || 1,
  };
}

export const workflowSummaryToJson = (w: workflowV1.Workflow) =>
  jsonFields(w, [
    'id',
    'name',
    'description',
    'status',
    'trigger_type',
    'last_run_at',
    'next_run_at',
    'created_at',
    'updated_at',
  ]);

export function executionToJson(e: workflowV1.Execution) {
  return {
    execution_id: e.executionId,
    workflow_id: e.workflowId,
    status: e.status,
    trigger: e.trigger,
    started_at: e.startedAt,
    ...(e.completedAt ? { completed_at: e.completedAt } : {}),
    ...(e.durationMs !== undefined ? { duration_ms: e.durationMs } : {}),
    node_executions: e.nodeExecutions.map((n) => ({
      node_id: n.nodeId,
      status: n.status,
      ...(n.startedAt ? { started_at: n.startedAt } : {}),
      duration_ms: n.durationMs,
      ...(n.output ? { output: n.output } : {}),
      ...(n.error ? { error: n.error } : {}),
      attempts: n.attempts,
    })),
    ...(e.output ? { output: e.output } : {}),
    ...(e.error ? { error: e.error } : {}),
    ...(e.failedNodeId ? { failed_node_id: e.failedNodeId } : {}),
    input: e.input ?? {},
    ...lineageToJson(e),
  };
}

/** The version an execution runs and where it comes from (a parent's node, a retried run). */
function lineageToJson(e: workflowV1.Execution) {
  return {
    workflow_version: e.workflowVersion || 1,
    ...(e.parentExecutionId ? { parent_execution_id: e.parentExecutionId } : {}),
    ...(e.parentNodeId ? { parent_node_id: e.parentNodeId } : {}),
    ...(e.retryOf ? { retry_of: e.retryOf } : {}),
  };
}

export function executionSummaryToJson(e: workflowV1.Execution) {
  return {
    execution_id: e.executionId,
    status: e.status,
    trigger: e.trigger,
    started_at: e.startedAt,
    ...(e.completedAt ? { completed_at: e.completedAt } : {}),
    ...(e.durationMs !== undefined ? { duration_ms: e.durationMs } : {}),
    ...(e.error ? { error: e.error } : {}),
    workflow_version: e.workflowVersion || 1,
    ...(e.parentExecutionId ? { parent_execution_id: e.parentExecutionId } : {}),
    ...(e.retryOf ? { retry_of: e.retryOf } : {}),
  };
}
