import { randomUUID } from 'node:crypto';
import { workflowV1 } from '@agentplatform/contracts/workflow-v1';
import { ValidationError, requireTenant, runWithContext, toCallError } from '@agentplatform/service-kit';
import type { Execution, NodeExecution } from '../domain/execution.types.js';
import { maskHeaders } from '../domain/sealed-headers.js';
import {
  triggerType,
  webhookPath,
  type JsonObject,
  type Workflow,
  type WorkflowEdge,
  type WorkflowNode,
  type WorkflowStatistics,
} from '../domain/workflow.types.js';
import { cancelExecution } from '../use-cases/cancel-execution.js';
import { changeWorkflowStatus } from '../use-cases/change-workflow-status.js';
import { createWorkflow } from '../use-cases/create-workflow.js';
import { deleteWorkflow } from '../use-cases/delete-workflow.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { executeWorkflow } from '../use-cases/execute-workflow.js';
import { getExecution } from '../use-cases/get-execution.js';
import { getWorkflow } from '../use-cases/get-workflow.js';
import { listExecutions } from '../use-cases/list-executions.js';
import { listWorkflows } from '../use-cases/list-workflows.js';
import { retryExecution } from '../use-cases/retry-execution.js';
import { rotateHook } from '../use-cases/rotate-hook.js';
import { resolveHook, triggerHook } from '../use-cases/trigger-hook.js';
import { updateWorkflow } from '../use-cases/update-workflow.js';

type Impl = workflowV1.WorkflowServiceImplementation;

/** Hooks one TriggerHooks call may carry (the gateway sends at most 64). */
export const MAX_HOOKS_PER_CALL = 256;

function fromNodes(nodes: workflowV1.Node[]): WorkflowNode[] {
  return nodes.map((n) => ({
    id: n.id,
    type: n.type,
    config: (n.config ?? {}) as JsonObject,
    ...(n.retry ? { retry: { max_attempts: n.retry.maxAttempts, backoff_ms: n.retry.backoffMs } } : {}),
    ...(n.timeoutMs !== undefined ? { timeout_ms: n.timeoutMs } : {}),
  }));
}

function fromEdges(edges: workflowV1.Edge[]): WorkflowEdge[] {
  return edges.map((e) => ({ source: e.source, target: e.target }));
}

function toNode(n: WorkflowNode): workflowV1.Node {
  return {
    id: n.id,
    type: n.type,
    config: n.config,
    retry: n.retry ? { maxAttempts: n.retry.max_attempts, backoffMs: n.retry.backoff_ms } : undefined,
    timeoutMs: n.timeout_ms,
  };
}

function toWorkflow(
  w: Workflow,
  extra: { statistics?: WorkflowStatistics; lastRunAt?: Date } = {},
): workflowV1.Workflow {
  return {
    id: w.id,
    tenantId: w.tenantId,
    name: w.name,
    description: w.description,
    status: w.status,
    triggerType: triggerType(w),
    // Header values never leave the service, sealed or not: answers show `"[set]"`.
    nodes: maskHeaders(w.nodes).map(toNode),
    edges: w.edges,
    webhookPath: webhookPath(w),
    statistics: extra.statistics
      ? {
          totalRuns: extra.statistics.totalRuns,
          successRate: extra.statistics.successRate,
          avgDurationMs: extra.statistics.avgDurationMs,
        }
      : undefined,
    lastRunAt: extra.lastRunAt?.toISOString(),
    nextRunAt: w.nextRunAt ? w.nextRunAt.toISOString() : undefined,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    version: w.version,
  };
}

function toNodeExecution(n: NodeExecution): workflowV1.NodeExecution {
  return { ...n, startedAt: n.startedAt ? new Date(n.startedAt).toISOString() : undefined };
}

function toExecution(e: Execution): workflowV1.Execution {
  return {
    executionId: e.id,
    workflowId: e.workflowId,
    tenantId: e.tenantId,
    status: e.status,
    trigger: e.trigger,
    startedAt: e.startedAt.toISOString(),
    completedAt: e.completedAt?.toISOString(),
    durationMs: e.durationMs,
    nodeExecutions: (e.nodeExecutions ?? []).map(toNodeExecution),
    output: e.output,
    error: e.error,
    failedNodeId: e.failedNodeId,
    input: e.input,
    workflowVersion: e.workflowVersion,
    parentExecutionId: e.parentExecutionId,
    parentNodeId: e.parentNodeId,
    retryOf: e.retryOf,
  };
}

/** Proto <-> use-case mapping only. */
export function workflowGrpcService(deps: UseCaseDeps): Impl {
  async function hook(req: workflowV1.TriggerHookRequest): Promise<workflowV1.TriggerHookResponse> {
    const { execution, responseMode } = await triggerHook(deps, {
      hookId: req.hookId,
      path: req.path,
      input: (req.input ?? {}) as JsonObject,
    });
    return {
      executionId: execution.id,
      workflowId: execution.workflowId,
      responseMode,
      execution: responseMode === 'last_node' ? toExecution(execution) : undefined,
    };
  }

  const changeStatus =
    (action: 'pause' | 'resume') =>
    async (req: workflowV1.SetWorkflowStatusRequest): Promise<workflowV1.Workflow> =>
      toWorkflow(
        await changeWorkflowStatus(deps, { tenantId: requireTenant(req.tenantId), workflowId: req.workflowId, action }),
      );

  return {
    async createWorkflow(req) {
      const workflow = await createWorkflow(deps, {
        tenantId: requireTenant(req.tenantId),
        name: req.name,
        description: req.description,
        nodes: fromNodes(req.nodes),
        edges: fromEdges(req.edges),
        plan: req.plan,
      });
      return toWorkflow(workflow);
    },
    async getWorkflow(req) {
      const details = await getWorkflow(deps, { tenantId: requireTenant(req.tenantId), workflowId: req.workflowId });
      return toWorkflow(details.workflow, details);
    },
    async listWorkflows(req) {
      const result = await listWorkflows(deps, { ...req, tenantId: requireTenant(req.tenantId) });
      return {
        items: result.items.map((i) => toWorkflow(i.workflow, { lastRunAt: i.lastRunAt })),
        total: result.total,
        page: result.page,
        perPage: result.perPage,
      };
    },
    async updateWorkflow(req) {
      const workflow = await updateWorkflow(deps, {
        tenantId: requireTenant(req.tenantId),
        workflowId: req.workflowId,
        name: req.name,
        description: req.description,
        nodes: req.replaceNodes ? fromNodes(req.nodes) : undefined,
        edges: req.replaceEdges ? fromEdges(req.edges) : undefined,
        plan: req.plan,
      });
      return toWorkflow(workflow);
    },
    async deleteWorkflow(req) {
      await deleteWorkflow(deps, { tenantId: requireTenant(req.tenantId), workflowId: req.workflowId });
      return { deleted: true };
    },
    pauseWorkflow: changeStatus('pause'),
    resumeWorkflow: changeStatus('resume'),
    async rotateHook(req) {
      return toWorkflow(await rotateHook(deps, { tenantId: requireTenant(req.tenantId), workflowId: req.workflowId }));
    },
    async executeWorkflow(req) {
      const execution = await executeWorkflow(deps, {
        tenantId: requireTenant(req.tenantId),
        workflowId: req.workflowId,
        input: (req.input ?? {}) as JsonObject,
        async: req.async,
        waitMs: req.waitMs,
        depth: req.depth,
      });
      return toExecution(execution);
    },
    triggerHook: (req) => hook(req),
    resolveHook: async (req) => {
      const workflow = await resolveHook(deps, req);
      return { workflowId: workflow.id, tenantId: workflow.tenantId };
    },
    async *triggerHooks(req) {
      if (req.hooks.length > MAX_HOOKS_PER_CALL)
        throw ValidationError.field('hooks', `must be at most ${MAX_HOOKS_PER_CALL} per call`);
      // Every hook starts at once; answers go out as they settle, each in its own request context.
      const settled: workflowV1.TriggerHooksAnswer[] = [];
      let wake: (() => void) | undefined;
      req.hooks.forEach((one, index) => {
        void runWithContext({ requestId: one.requestId || randomUUID() }, () => hook(one))
          .then(
            (accepted): workflowV1.TriggerHooksAnswer => ({ index, outcome: { $case: 'accepted', value: accepted } }),
            (error: unknown): workflowV1.TriggerHooksAnswer => ({
              index,
              outcome: {
                $case: 'error',
                value: toCallError(error, deps.logger, '/agentplatform.workflow.v1.WorkflowService/TriggerHooks'),
              },
            }),
          )
          .then((answer) => {
            settled.push(answer);
            wake?.();
          });
      });
      for (let answered = 0; answered < req.hooks.length;) {
        if (settled.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const ready = settled.splice(0);
        answered += ready.length;
        yield* ready;
      }
    },
    async getExecution(req) {
      return toExecution(await getExecution(deps, { ...req, tenantId: requireTenant(req.tenantId) }));
    },
    async listExecutions(req) {
      const result = await listExecutions(deps, { ...req, tenantId: requireTenant(req.tenantId) });
      return { items: result.items.map(toExecution), total: result.total };
    },
    async retryExecution(req) {
      if (req.version !== '' && req.version !== 'failed' && req.version !== 'current') {
        throw ValidationError.field('version', "must be 'failed' or 'current'");
      }
      return toExecution(
        await retryExecution(deps, {
          tenantId: requireTenant(req.tenantId),
          executionId: req.executionId,
          version: req.version === 'current' ? 'current' : 'failed',
        }),
      );
    },
    async cancelExecution(req) {
      return toExecution(await cancelExecution(deps, { ...req, tenantId: requireTenant(req.tenantId) }));
    },
  };
}
