import { agentMemoryV1, identityV1, webhookV1, workflowV1 } from '@agentplatform/contracts';
import {
  createGrpcClient,
  groupedRequests,
  meteredInFlightLimits,
  openChannel,
  type Channel,
  type Client,
  type Metrics,
} from '@agentplatform/service-kit';
import { HealthDefinition } from 'nice-grpc-server-health';
import type { GatewayConfig } from '../config.js';
import { hookDirectory, type ResolvedHook } from './hook-directory.js';
import { HookTrigger, type Hook } from './hook-trigger.js';
import type { WorkflowClient } from './workflow-client.js';

/** A synchronous execute (or a `last_node` hook) waits up to 30 s in the service; the call's deadline leaves room for that. */
export const EXECUTE_DEADLINE_MS = 35_000;

type Health = Client<typeof HealthDefinition, { deadline?: Date | number }>;

/** The gRPC clients of the four backend services, one channel each. */
export interface Backends {
  identity: Client<typeof identityV1.IdentityServiceDefinition, { deadline?: Date | number }>;
  agentMemory: Client<typeof agentMemoryV1.AgentMemoryServiceDefinition, { deadline?: Date | number }>;
  workflow: WorkflowClient;
  webhook: Client<typeof webhookV1.WebhookServiceDefinition, { deadline?: Date | number }>;
  /**
   * Single memory adds, grouped: a lone add is one AddMemory call; adds made while two calls are
   * in flight go together in the next AddMemoryMany, whatever their tenants, each answered on its
   * own.
   */
  addMemory(request: agentMemoryV1.AddMemoryRequest): Promise<agentMemoryV1.MemoryItem>;
  /**
   * Agent listings, grouped like `addMemory` (ListAgents, ListAgentsMany) but one call in flight;
   * identical listings of one group (same tenant and query) are sent once and share its answer:
   * never change it.
   */
  listAgents(request: agentMemoryV1.ListAgentsRequest): Promise<agentMemoryV1.ListAgentsResponse>;
  /**
   * The workflow an inbound hook starts, and its tenant (ResolveHook; a live hook is remembered
   * for 5 s: clients/hook-directory.ts); not_found unless it is an active workflow's hook at this path.
   */
  resolveHook(hookId: string, path: string): Promise<ResolvedHook>;
  /**
   * Starts an inbound hook (TriggerHook; the hooks of one tenant in one event-loop turn go as one
   * TriggerHooks stream: clients/hook-trigger.ts), counted for the request context's tenant. A
   * `last_node` hook waits for its run like a synchronous execute.
   */
  triggerHook(hook: Hook): Promise<workflowV1.TriggerHookResponse>;
  /** Health clients by service name, for the readiness probe. */
  health: Record<BackendName, Health>;
  close(): void;
}

export type BackendName = 'identity' | 'agent-memory' | 'workflow' | 'webhook';

/**
 * What a listing's answer depends on: the whole request as encoded for the wire (tenant, page,
 * page size, filters, and any field added later), so two listings share an answer only when
 * agent-memory would be asked exactly the same thing.
 */
export function listingKey(request: agentMemoryV1.ListAgentsRequest): string {
  const bytes = agentMemoryV1.ListAgentsRequest.encode(request).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

export function connectBackends(config: GatewayConfig, metrics: Metrics): Backends {
  const channels: Record<BackendName, Channel> = {
    identity: openChannel(config.IDENTITY_GRPC_ADDR),
    'agent-memory': openChannel(config.AGENT_MEMORY_GRPC_ADDR),
    workflow: openChannel(config.WORKFLOW_GRPC_ADDR),
    webhook: openChannel(config.WEBHOOK_GRPC_ADDR),
  };
  // Each backend's calls in flight are bounded here too, below the backend's own bound: a
  // saturated backend's calls are refused before they are sent, not queued until their deadline;
  // and one tenant's calls hold at most its share of the places (the request context's tenant).
  const limit = meteredInFlightLimits(metrics, 'gateway_backend');
  const options = (name: BackendName) => {
    const max = name === 'agent-memory' ? config.AGENT_MEMORY_MAX_IN_FLIGHT : config.BACKEND_MAX_IN_FLIGHT;
    return {
      deadlineMs: config.GRPC_DEADLINE_MS,
      metrics,
      inFlight: { limit: limit(name, max, config.BACKEND_TENANT_SHARE), name: 'service' },
    };
  };
  const agentMemoryOptions = options('agent-memory');
  const coalescedListings = metrics.counter(
    'gateway_listings_coalesced_total',
    "Agent listings answered by an identical listing's read (same tenant and query, one grouped call)",
  );
  const agentMemory = createGrpcClient(
    agentMemoryV1.AgentMemoryServiceDefinition,
    channels['agent-memory'],
    agentMemoryOptions,
  );
  // Each item carries its own request's id and trace context: agent-memory runs it in them.
  const addMemory = groupedRequests({
    single: (request: agentMemoryV1.AddMemoryRequest) => agentMemory.addMemory(request),
    batch: (items) => agentMemory.addMemoryMany({ items }),
  });
  const listAgents = groupedRequests({
    single: (request: agentMemoryV1.ListAgentsRequest) => agentMemory.listAgents(request),
    batch: (items) => agentMemory.listAgentsMany({ items }),
    coalesce: listingKey,
    onCoalesced: (requests) => coalescedListings.inc(requests),
    // One call at a time: the listings made meanwhile wait for it and coalesce into fewer calls.
    inFlight: 1,
  });
  const workflow = createGrpcClient(workflowV1.WorkflowServiceDefinition, channels.workflow, options('workflow'));
  const hooks = new HookTrigger(workflow, EXECUTE_DEADLINE_MS);
  const health = (name: BackendName) => createGrpcClient(HealthDefinition, channels[name], { deadlineMs: 1_000 });
  return {
    identity: createGrpcClient(identityV1.IdentityServiceDefinition, channels.identity, options('identity')),
    agentMemory,
    addMemory,
    listAgents,
    workflow,
    resolveHook: hookDirectory(workflow, config.GRPC_DEADLINE_MS),
    triggerHook: (hook) => hooks.trigger(hook),
    webhook: createGrpcClient(webhookV1.WebhookServiceDefinition, channels.webhook, options('webhook')),
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
