import { workflowV1 } from '@agentplatform/contracts/workflow-v1';
import { createGrpcClient, DomainError, openChannel, type Metrics } from '@agentplatform/service-kit';

export interface WorkflowRun {
  executionId: string;
  /** running (still, after the wait), completed, failed, cancelled */
  status: string;
  output?: Record<string, unknown>;
  error?: string;
}

/** What agents' workflow tools need of the workflow service (docs/design.md section 9). */
export interface WorkflowPort {
  /** False when the workflow does not exist in the tenant (another tenant's ids included). */
  exists(tenantId: string, workflowId: string): Promise<boolean>;
  /** A manual run that waits up to `waitMs` for the end; costs its run credit in the workflow service. */
  run(
    input: { tenantId: string; workflowId: string; input: Record<string, unknown>; waitMs: number; depth: number },
    options: { signal: AbortSignal },
  ): Promise<WorkflowRun>;
}

/** The workflow service's gRPC API. */
export function grpcWorkflows(address: string, deadlineMs: number, metrics: Metrics): WorkflowPort & { close(): void } {
  const channel = openChannel(address);
  const client = createGrpcClient(workflowV1.WorkflowServiceDefinition, channel, { deadlineMs, metrics });
  return {
    async exists(tenantId, workflowId) {
      try {
        await client.getWorkflow({ tenantId, workflowId });
        return true;
      } catch (error) {
        if (error instanceof DomainError && error.code === 'not_found') return false;
        throw error;
      }
    },
    async run(input, options) {
      const execution = await client.executeWorkflow(
        {
          tenantId: input.tenantId,
          workflowId: input.workflowId,
          input: input.input,
          async: false,
          waitMs: input.waitMs,
          depth: input.depth,
        },
        // The run may take its whole wait; the call gets that plus room for the answer.
        { signal: options.signal, deadline: input.waitMs + deadlineMs },
      );
      return {
        executionId: execution.executionId,
        status: execution.status,
        ...(execution.output ? { output: execution.output } : {}),
        ...(execution.error ? { error: execution.error } : {}),
      };
    },
    close: () => channel.close(),
  };
}
