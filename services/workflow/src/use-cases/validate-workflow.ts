import { ValidationError, isPlanName, planScheduleMinIntervalMs, type FieldIssue } from '@agentplatform/service-kit';
import type { AgentDirectory } from '../clients/agents.client.js';
import { validateGraph } from '../domain/graph.js';
import { closestTicksUnder, scheduleOf } from '../domain/schedule.js';
import { CHILD_NODE_TYPES, type WorkflowGraph } from '../domain/workflow.types.js';
import type { WorkflowStore } from './deps.js';

export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 5_000;

export function checkName(name: string | undefined, issues: FieldIssue[], required: boolean): void {
  if (name === undefined) {
    if (required) issues.push({ field: 'name', message: 'is required' });
    return;
  }
  if (name.trim() === '') issues.push({ field: 'name', message: 'must not be empty' });
  else if (name.length > NAME_MAX) issues.push({ field: 'name', message: `must be at most ${NAME_MAX} characters` });
}

export function checkDescription(description: string | undefined, issues: FieldIssue[]): void {
  if (description !== undefined && description.length > DESCRIPTION_MAX) {
    issues.push({ field: 'description', message: `must be at most ${DESCRIPTION_MAX} characters` });
  }
}

/** What composition checks need: the tenant's workflows, and the id of the workflow being updated. */
export interface CompositionCheck {
  workflows: Pick<WorkflowStore, 'get'>;
  selfId?: string;
}

/**
 * Validates a graph (docs/design.md section 7) and, once it is otherwise valid, that each agent node's
 * agent exists in the tenant (asked of agent-memory) and that each workflow or foreach node names
 * another workflow of the tenant (never the workflow itself). Throws one ValidationError naming
 * every issue.
 */
export async function validateWorkflow(
  agents: AgentDirectory,
  tenantId: string,
  graph: WorkflowGraph,
  issues: FieldIssue[],
  composition?: CompositionCheck,
): Promise<void> {
  issues.push(...validateGraph(graph));
  if (issues.length > 0) throw new ValidationError(issues);
  const checks = graph.nodes
    .map((node, i) => ({ node, i }))
    .filter(({ node }) => node.type === 'agent')
    .map(async ({ node, i }) => {
      const agentId = String(node.config.agent_id);
      if (!(await agents.agentExists(tenantId, agentId))) {
        issues.push({ field: `nodes[${i}].config.agent_id`, message: `agent '${agentId}' not found` });
      }
    });
  const calls = graph.nodes
    .map((node, i) => ({ node, i }))
    .filter(({ node }) => CHILD_NODE_TYPES.includes(node.type))
    .map(async ({ node, i }) => {
      const workflowId = String(node.config.workflow_id);
      const field = `nodes[${i}].config.workflow_id`;
      if (workflowId === composition?.selfId) {
        issues.push({ field, message: 'a workflow cannot call itself' });
      } else if (!composition || !(await composition.workflows.get(tenantId, workflowId))) {
        issues.push({ field, message: `workflow '${workflowId}' not found` });
      }
    });
  await Promise.all([...checks, ...calls]);
  if (issues.length > 0) {
    issues.sort((a, b) => a.field.localeCompare(b.field));
    throw new ValidationError(issues);
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/**
 * A schedule may not fire more often than the tenant's plan allows (docs/workflow-engine.md,
 * "Schedules"): a schedule with two coming ticks closer than the plan's minimum interval is refused. Call on a graph that passed validateWorkflow.
 */
export function checkSchedulePlan(graph: WorkflowGraph, plan: string | undefined): void {
  const index = graph.nodes.findIndex((n) => n.type === 'schedule');
  const schedule = scheduleOf(graph.nodes);
  if (index < 0 || !schedule) return;
  const minimum = planScheduleMinIntervalMs(plan);
  const smallest = closestTicksUnder(schedule, minimum, new Date());
  if (smallest === undefined) return;
  const planName = plan && isPlanName(plan) ? plan : 'free';
  throw ValidationError.field(
    `nodes[${index}].config.cron`,
    `fires ${seconds(smallest)} apart at its closest; the ${planName} plan allows at most one run every ${seconds(minimum)}`,
  );
}
