import { NODE_TYPES } from '@agentplatform/service-kit';
import { z } from 'zod';
import { int32, limitParam, pageParams } from '../../http/paging.js';

/**
 * Shapes only: types and required fields. The graph's rules (node types and configs, references,
 * cycles, expressions, agents) are checked by the workflow service, which names the same field
 * paths (`nodes[2].config.rules[0].if`).
 */
const retry = z.object({
  max_attempts: int32(),
  backoff_ms: int32().default(1_000),
});

/** A schedule node's config, for the OpenAPI document (the workflow service validates it). */
export const scheduleNodeConfig = z
  .object({
    cron: z.string().describe('5 fields (minute first) or 6 (second first), e.g. "0 9 * * 1-5" or "*/30 * * * * *"'),
    timezone: z.string().default('UTC').describe('IANA timezone the cron is read in'),
    input: z.record(z.string(), z.unknown()).optional().describe("the scheduled execution's input"),
    catch_up_ms: int32()
      .optional()
      .describe('the newest tick missed while no replica ran still runs once when it is at most this old (default 0)'),
  })
  .describe('config of a schedule node (the plan sets the smallest interval: docs/workflows.md)');

export const nodeSchema = z.object({
  id: z.string(),
  type: z.enum(NODE_TYPES),
  config: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      'depends on type (docs/workflows.md); a schedule node takes ScheduleNodeConfig. An integration node\'s header values are write-only: answers show "[set]", and an update that sends "[set]" keeps the stored value',
    ),
  retry: retry.optional(),
  timeout_ms: int32().optional(),
});

const edgeSchema = z.object({ source: z.string(), target: z.string() });

export const createWorkflowBody = z.object({
  name: z.string(),
  description: z.string().default(''),
  nodes: z.array(nodeSchema),
  edges: z.array(edgeSchema).default([]),
});

export const updateWorkflowBody = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  nodes: z.array(nodeSchema).optional(),
  edges: z.array(edgeSchema).optional(),
});

export const listWorkflowsQuery = z.object({
  ...pageParams,
  status: z.enum(['draft', 'active', 'paused']).optional(),
});

export const executeBody = z.object({
  input: z.record(z.string(), z.unknown()).default({}),
  async: z.boolean().default(false),
});

export const listExecutionsQuery = z.object({
  limit: limitParam,
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']).optional(),
});

export const workflowParams = z.object({ workflow_id: z.string().min(1) });
export const executionParams = z.object({ workflow_id: z.string().min(1), execution_id: z.string().min(1) });

const nodeExecution = z.object({
  node_id: z.string(),
  status: z.enum(['completed', 'failed', 'skipped']),
  started_at: z.string().optional(),
  duration_ms: z.number().int(),
  output: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  attempts: z.number().int(),
});

export const executionResponse = z.object({
  execution_id: z.string(),
  workflow_id: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  trigger: z.enum(['manual', 'webhook', 'schedule']),
  started_at: z.string(),
  completed_at: z.string().optional(),
  duration_ms: z.number().int().optional(),
  node_executions: z.array(nodeExecution),
  output: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  failed_node_id: z.string().optional(),
  input: z.record(z.string(), z.unknown()),
  workflow_version: z.number().int().describe('the workflow version whose graph the execution runs'),
  parent_execution_id: z
    .string()
    .optional()
    .describe('set on a run started by a workflow or foreach node: the execution that started it'),
  parent_node_id: z.string().optional().describe('the node of the parent execution that started this run'),
  retry_of: z.string().optional().describe('the failed or cancelled execution this one retries'),
});

export const retryExecutionParams = z.object({ execution_id: z.string().min(1) });

export const retryExecutionBody = z.object({
  version: z
    .enum(['failed', 'current'])
    .default('failed')
    .describe("failed: the graph the retried execution ran; current: the workflow's graph now"),
});

export const workflowResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  status: z.enum(['draft', 'active', 'paused']),
  trigger_type: z.enum(['webhook', 'manual', 'schedule']),
  nodes: z.array(nodeSchema),
  edges: z.array(edgeSchema),
  webhook_url: z
    .string()
    .nullable()
    .describe('the secret hook URL; null for callers without workflows:execute (it starts runs)'),
  statistics: z
    .object({ total_runs: z.number().int(), success_rate: z.number(), avg_duration: z.string() })
    .optional()
    .describe('get only'),
  last_run_at: z.string().nullable(),
  next_run_at: z
    .string()
    .nullable()
    .describe('the next schedule tick; null unless the workflow is active and scheduled'),
  created_at: z.string(),
  updated_at: z.string(),
  version: z.number().int().describe('bumped by every change of nodes, edges, name or description; 1 on create'),
});

export const workflowListResponse = z.object({
  items: z.array(
    workflowResponse.pick({
      id: true,
      name: true,
      description: true,
      status: true,
      trigger_type: true,
      last_run_at: true,
      next_run_at: true,
      created_at: true,
      updated_at: true,
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const executionListResponse = z.object({
  items: z.array(
    executionResponse.pick({
      execution_id: true,
      status: true,
      trigger: true,
      started_at: true,
      completed_at: true,
      duration_ms: true,
      error: true,
      workflow_version: true,
      parent_execution_id: true,
      retry_of: true,
    }),
  ),
  total: z.number().int(),
});

export const statusResponse = z.object({ id: z.string(), status: z.string(), updated_at: z.string() });
