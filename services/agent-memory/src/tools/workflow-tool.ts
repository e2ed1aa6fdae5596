import { DomainError } from '@agentplatform/service-kit';
import type { WorkflowPort } from '../clients/workflow.client.js';
import { workflowToolName, type WorkflowGrant } from '../domain/tools.js';
import { ToolError, type Tool, type ToolScope } from './tool.js';

/** The longest a workflow tool waits for its execution (the workflow service's own cap). */
const MAX_WAIT_MS = 30_000;

/** Runs a workflow of the agent's tenant with the arguments as input; the result is its output. */
export function workflowTool(workflows: WorkflowPort, scope: ToolScope, grant: WorkflowGrant, timeoutMs: number): Tool {
  return {
    name: workflowToolName(grant),
    description: grant.description ?? `Runs workflow ${grant.workflow_id} with the arguments as its input.`,
    parameters: grant.input_schema ?? { type: 'object', properties: {} },
    async run(args, signal) {
      let run;
      try {
        run = await workflows.run(
          {
            tenantId: scope.tenantId,
            workflowId: grant.workflow_id,
            input: args,
            waitMs: Math.min(MAX_WAIT_MS, timeoutMs),
            depth: (scope.depth ?? 0) + 1,
          },
          { signal },
        );
      } catch (error) {
        if (error instanceof DomainError) throw new ToolError(`workflow ${grant.workflow_id}: ${error.message}`);
        throw error;
      }
      if (run.status === 'failed' || run.status === 'cancelled') {
        throw new ToolError(`execution ${run.executionId} ${run.status}: ${run.error ?? 'no error message'}`);
      }
      return { execution_id: run.executionId, status: run.status, output: run.output ?? null };
    },
  };
}
