import { agentMemoryV1, identityV1, webhookV1, workflowV1 } from '@agentplatform/contracts';
import {
  createGrpcClient,
  currentRequestId,
  currentTraceparent,
  groupedCall,
  openChannel,
  type Channel,
  type Client,
  type Metrics,
} from '@agentplatform/service-kit';
import { HealthDefinition } from 'nice-grpc-server-health';
import type { GatewayConfig } from '../config.js';

type Health = Client<typeof HealthDefinition, { deadline?: Date | number }>;

/** The gRPC clients of the four backend services, one channel each. */
export interface Backends {
  identity: Client<typeof identityV1.IdentityServiceDefinition, { deadline?: Date | number }>;
  agentMemory: Client<typeof agentMemoryV1.AgentMemoryServiceDefinition, { deadline?: Date | number }>;
  workflow: Client<typeof workflowV1.WorkflowServiceDefinition, { deadline?: Date | number }>;
  webhook: Client<typeof webhookV1.WebhookServiceDefinition, { deadline?: Date | number }>;
  /**
   * Single memory adds, grouped: a lone add is one AddMemory call; adds made while one is in
   * flight go together in one AddMemoryMany, whatever their tenants, each answered on its own.
   */
  addMemory(request: agentMemoryV1.AddMemoryRequest): Promise<agentMemoryV1.MemoryItem>;
  /** Health clients by service name, for the readiness probe. */
  health: Record<BackendName, Health>;
  close(): void;
}

/** An AddMemoryMany item as the gateway builds it: always with its request. */
type AddItem = agentMemoryV1.AddMemoryManyItem & { request: agentMemoryV1.AddMemoryRequest };

export type BackendName = 'identity' | 'agent-memory' | 'workflow' | 'webhook';

export function connectBackends(config: GatewayConfig, metrics: Metrics): Backends {
  const channels: Record<BackendName, Channel> = {
    identity: openChannel(config.IDENTITY_GRPC_ADDR),
    'agent-memory': openChannel(config.AGENT_MEMORY_GRPC_ADDR),
    workflow: openChannel(config.WORKFLOW_GRPC_ADDR),
    webhook: openChannel(config.WEBHOOK_GRPC_ADDR),
  };
  const options = { deadlineMs: config.GRPC_DEADLINE_MS, metrics };
  const agentMemory = createGrpcClient(agentMemoryV1.AgentMemoryServiceDefinition, channels['agent-memory'], options);
  const adds = groupedCall({
    single: (item: AddItem) => agentMemory.addMemory(item.request),
    batch: (items) => agentMemory.addMemoryMany({ items }),
    value: (added: agentMemoryV1.MemoryItem) => added,
  });
  const health = (name: BackendName) => createGrpcClient(HealthDefinition, channels[name], { deadlineMs: 1_000 });
  return {
    identity: createGrpcClient(identityV1.IdentityServiceDefinition, channels.identity, options),
    agentMemory,
    // Each item carries its own request's id and trace context: agent-memory runs it in them.
    addMemory: (request) =>
      adds.call({ request, requestId: currentRequestId() ?? '', traceparent: currentTraceparent() ?? '' }),
    workflow: createGrpcClient(workflowV1.WorkflowServiceDefinition, channels.workflow, options),
    webhook: createGrpcClient(webhookV1.WebhookServiceDefinition, channels.webhook, options),
    health: {
      identity: health('identity'),
      'agent-memory': health('agent-memory'),
      workflow: health('workflow'),
      webhook: health('webhook'),
    },
    close() {
      for (const channel of Object.values(channels)) channel.close();
    },
  };
}
