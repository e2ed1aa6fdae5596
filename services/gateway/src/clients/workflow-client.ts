import type { workflowV1 } from '@agentplatform/contracts';
import type { Client } from '@agentplatform/service-kit';

/** The workflow service's gRPC client as the gateway holds it (deadline per call). */
export type WorkflowClient = Client<typeof workflowV1.WorkflowServiceDefinition, { deadline?: Date | number }>;
