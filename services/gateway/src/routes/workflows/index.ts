import { z } from 'zod';
import type { workflowV1 } from '@agentplatform/contracts';
import { EXECUTE_DEADLINE_MS, type Backends } from '../../clients/backends.js';
import type { GatewayConfig } from '../../config.js';
import { defineRoute, requireScope, type Caller, type Route } from '../../http/route.js';
import { tenantRequest } from '../../http/json-fields.js';
import { itemsPage } from '../../http/paging.js';
import type { RouteDeps } from '../deps.js';
import {
  executionSummaryToJson,
  executionToJson,
  visibleHooksBase,
  workflowSummaryToJson,
  workflowToJson,
} from './workflows.mapping.js';
import {
  createWorkflowBody,
  executeBody,
  executionListResponse,
  executionParams,
  executionResponse,
  listExecutionsQuery,
  listWorkflowsQuery,
  nodeSchema,
  retryExecutionBody,
  retryExecutionParams,
  statusResponse,
  updateWorkflowBody,
  workflowListResponse,
  workflowParams,
  workflowResponse,
} from './workflows.schemas.js';

type NodeJson = z.infer<typeof nodeSchema>;

function nodesToProto(nodes: NodeJson[]): workflowV1.Node[] {
  return nodes.map((n) => ({
    id: n.id,
    type: n.type,
    config: n.config,
    retry: n.retry ? { maxAttempts: n.retry.max_attempts, backoffMs: n.retry.backoff_ms } : undefined,
    timeoutMs: n.timeout_ms,
  }));
}

type Workflows = Backends['workflow'];

/** `GET /workflows`, and the MCP tool `list_workflows`. */
export async function listWorkflows(workflows: Workflows, caller: Caller, query: z.infer<typeof listWorkflowsQuery>) {
  return itemsPage(await workflows.listWorkflows(tenantRequest(caller, query)), workflowSummaryToJson);
}

/** `POST /workflows/:workflow_id/execute`, and the MCP tool `run_workflow`. */
export async function executeWorkflow(
  workflows: Workflows,
  config: Pick<GatewayConfig, 'GRPC_DEADLINE_MS'>,
  caller: Caller,
  workflowId: string,
  body: z.infer<typeof executeBody>,
) {
  const execution = await workflows.executeWorkflow(
    { tenantId: caller.tenantId, workflowId, input: body.input, async: body.async },
    { deadline: body.async ? config.GRPC_DEADLINE_MS : EXECUTE_DEADLINE_MS },
  );
  return executionToJson(execution);
}

/**
 * `GET /workflows/:workflow_id/executions/:execution_id`, and the MCP tool `get_execution`, which
 * names no workflow: an empty workflow id finds the execution in any of the tenant's workflows.
 */
export async function getExecution(
  workflows: Workflows,
  caller: Caller,
  ids: { workflow_id?: string; execution_id: string },
) {
  const execution = await workflows.getExecution({
    tenantId: caller.tenantId,
    workflowId: ids.workflow_id ?? '',
    executionId: ids.execution_id,
  });
  return executionToJson(execution);
}

/** `POST /workflows/:workflow_id/pause` and `/resume`: a status change answered with the new status. */
function statusChange(
  path: string,
  summary: string,
  change: (request: { tenantId: string; workflowId: string }) => Promise<workflowV1.Workflow>,
) {
  return defineRoute({
    method: 'post',
    path,
    summary,
    tag: 'workflows',
    access: requireScope('workflows:write'),
    params: workflowParams,
    response: statusResponse,
    handler: async ({ params, caller }) => {
      const workflow = await change(tenantRequest(caller, params));
      return { id: workflow.id, status: workflow.status, updated_at: workflow.updatedAt };
    },
  });
}

/** The workflows routes (the API reference, docs/design.md section 7), plus delete and cancel. */
export function workflowRoutes({ backends, config }: RouteDeps): Route[] {
  const workflows = backends.workflow;
  return [
    defineRoute({
      method: 'get',
      path: '/workflows',
      summary: "List the tenant's workflows, newest first",
      tag: 'workflows',
      access: requireScope('workflows:read'),
      query: listWorkflowsQuery,
      response: workflowListResponse,
      handler: ({ query, caller }) => listWorkflows(workflows, caller, query),
    }),
    defineRoute({
      method: 'post',
      path: '/workflows',
      summary: 'Create a workflow (status draft)',
      tag: 'workflows',
      access: requireScope('workflows:write'),
      idempotent: true,
      body: createWorkflowBody,
      example: {
        name: 'Triage inbound tickets',
        description: 'Routes urgent tickets to a receiver',
        nodes: [
          { id: 'start', type: 'webhook', config: {} },
          {
            id: 'check',
            type: 'condition',
            config: { rules: [{ if: "input.priority == 'high'", goto: 'urgent' }, { else: 'normal' }] },
          },
          { id: 'urgent', type: 'transform', config: { fields: { route: "'pager'" } } },
          { id: 'normal', type: 'transform', config: { fields: { route: "'queue'" } } },
        ],
        edges: [{ source: 'start', target: 'check' }],
      },
      status: 201,
      response: workflowResponse,
      handler: async ({ body, caller, ctx }) => {
        const workflow = await workflows.createWorkflow({
          tenantId: caller.tenantId,
          name: body.name,
          description: body.description,
          nodes: nodesToProto(body.nodes),
          edges: body.edges,
          plan: caller.plan ?? '',
        });
        return workflowToJson(workflow, visibleHooksBase(config, ctx, caller));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/:workflow_id',
      summary: 'Get a workflow with its run statistics',
      tag: 'workflows',
      access: requireScope('workflows:read'),
      params: workflowParams,
      response: workflowResponse,
      handler: async ({ params, caller, ctx }) => {
        const workflow = await workflows.getWorkflow(tenantRequest(caller, params));
        return workflowToJson(workflow, visibleHooksBase(config, ctx, caller));
      },
    }),
    defineRoute({
      method: 'put',
      path: '/workflows/:workflow_id',
      summary: 'Update a workflow: name, description, and the graph (nodes and edges replace the old ones)',
      tag: 'workflows',
      access: requireScope('workflows:write'),
      params: workflowParams,
      body: updateWorkflowBody,
      example: {
        name: 'Triage inbound tickets (v2)',
        nodes: [
          { id: 'start', type: 'webhook', config: {} },
          { id: 'tag', type: 'transform', config: { fields: { route: "'queue'" } } },
        ],
        edges: [{ source: 'start', target: 'tag' }],
      },
      response: workflowResponse,
      handler: async ({ params, body, caller, ctx }) => {
        const workflow = await workflows.updateWorkflow({
          tenantId: caller.tenantId,
          workflowId: params.workflow_id,
          name: body.name,
          description: body.description,
          replaceNodes: body.nodes !== undefined,
          nodes: body.nodes ? nodesToProto(body.nodes) : [],
          replaceEdges: body.edges !== undefined,
          edges: body.edges ?? [],
          plan: caller.plan ?? '',
        });
        return workflowToJson(workflow, visibleHooksBase(config, ctx, caller));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workflows/:workflow_id',
      summary: 'Delete a workflow and its execution history',
      tag: 'workflows',
      access: requireScope('workflows:write'),
      params: workflowParams,
      response: z.object({ success: z.boolean(), message: z.string() }),
      handler: async ({ params, caller }) => {
        await workflows.deleteWorkflow(tenantRequest(caller, params));
        return { success: true, message: 'Workflow deleted' };
      },
    }),
    statusChange(
      '/workflows/:workflow_id/pause',
      'Pause a workflow: hooks answer 404 and execute 409 until it is resumed',
      (request) => workflows.pauseWorkflow(request),
    ),
    statusChange(
      '/workflows/:workflow_id/resume',
      'Activate a workflow (its hook URL starts taking requests)',
      (request) => workflows.resumeWorkflow(request),
    ),
    defineRoute({
      method: 'post',
      path: '/workflows/:workflow_id/hook/rotate',
      summary: 'Give the workflow a new secret hook URL; the old one answers 404 from now on',
      tag: 'workflows',
      access: requireScope('workflows:write'),
      params: workflowParams,
      response: workflowResponse,
      handler: async ({ params, caller, ctx }) => {
        const workflow = await workflows.rotateHook(tenantRequest(caller, params));
        return workflowToJson(workflow, visibleHooksBase(config, ctx, caller));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/:workflow_id/execute',
      errors: ['insufficient_credits', 'conflict'],
      alternateStatus: 202,
      summary: 'Run a workflow: async answers 202 at once; otherwise waits up to 30 s for the finished execution',
      tag: 'workflows',
      access: requireScope('workflows:execute'),
      idempotent: true,
      params: workflowParams,
      body: executeBody,
      example: { input: { priority: 'high', subject: 'Checkout is down' }, async: true },
      status: 200,
      response: executionResponse,
      handler: async ({ params, body, caller, ctx }) => {
        const execution = await executeWorkflow(workflows, config, caller, params.workflow_id, body);
        ctx.state.responseStatus = execution.status === 'running' ? 202 : 200;
        return execution;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/:workflow_id/executions',
      summary: "A workflow's executions, newest first",
      tag: 'workflows',
      access: requireScope('workflows:read'),
      params: workflowParams,
      query: listExecutionsQuery,
      response: executionListResponse,
      handler: async ({ params, query, caller }) => {
        const answer = await workflows.listExecutions(tenantRequest(caller, { ...params, ...query }));
        return { items: answer.items.map(executionSummaryToJson), total: answer.total };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/:workflow_id/executions/:execution_id',
      summary: 'One execution with its per-node results',
      tag: 'workflows',
      access: requireScope('workflows:read'),
      params: executionParams,
      response: executionResponse,
      handler: ({ params, caller }) => getExecution(workflows, caller, params),
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/:workflow_id/executions/:execution_id/cancel',
      errors: ['conflict'],
      summary: 'Cancel a running or queued execution (again on a retry; 409 once it has completed or failed)',
      tag: 'workflows',
      access: requireScope('workflows:execute'),
      params: executionParams,
      response: executionResponse,
      handler: async ({ params, caller }) => {
        return executionToJson(await workflows.cancelExecution(tenantRequest(caller, params)));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/executions/:execution_id/retry',
      errors: ['insufficient_credits', 'conflict'],
      summary:
        'Retry a failed or cancelled execution from the node that failed: a new execution (retry_of) that reuses the completed nodes',
      tag: 'workflows',
      access: requireScope('workflows:execute'),
      idempotent: true,
      params: retryExecutionParams,
      body: retryExecutionBody,
      example: { version: 'current' },
      status: 202,
      response: executionResponse,
      handler: async ({ params, body, caller }) => {
        return executionToJson(await workflows.retryExecution(tenantRequest(caller, { ...params, ...body })));
      },
    }),
  ];
}
