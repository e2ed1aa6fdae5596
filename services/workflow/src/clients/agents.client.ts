import { agentMemoryV1 } from '@agentplatform/contracts/agent-memory-v1';
import {
  DomainError,
  createGrpcClient,
  runForTenant,
  type Channel,
  type InFlightLimit,
  type JsonObject,
  type JsonValue,
  type Metrics,
} from '@agentplatform/service-kit';

export interface ChatReply {
  message_id: string;
  session_id: string;
  content: string;
  role: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  created_at: string;
  /** The tool calls the agent made (docs/design.md section 9), as the chat API shows them. */
  steps: JsonObject[];
}

/** What the workflow service asks of agent-memory. */
export interface AgentDirectory {
  /** False when the agent does not exist in the tenant. */
  agentExists(tenantId: string, agentId: string): Promise<boolean>;
  chat(
    request: { tenantId: string; agentId: string; message: string; sessionId?: string; depth: number },
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<ChatReply>;
}

/**
 * agent-memory for the workflow service. Every call is counted for its tenant against `limit`
 * (its share of the replica's places), so one tenant's fan-out of agent nodes neither takes the
 * places of other tenants' workflows nor fills agent-memory's own bound.
 */
export function grpcAgentDirectory(
  channel: Channel,
  deadlineMs: number,
  metrics: Metrics,
  limit: InFlightLimit,
): AgentDirectory {
  const client = createGrpcClient(agentMemoryV1.AgentMemoryServiceDefinition, channel, {
    deadlineMs,
    metrics,
    inFlight: { limit, name: 'agent service' },
  });
  return {
    async agentExists(tenantId, agentId) {
      try {
        await runForTenant(tenantId, () => client.getAgent({ tenantId, agentId }));
        return true;
      } catch (error) {
        if (error instanceof DomainError && error.code === 'not_found') return false;
        throw error;
      }
    },
    async chat(request, options) {
      const reply = await runForTenant(request.tenantId, () =>
        client.chat(
          {
            tenantId: request.tenantId,
            agentId: request.agentId,
            message: request.message,
            sessionId: request.sessionId,
            depth: request.depth,
          },
          { signal: options.signal, deadline: options.timeoutMs },
        ),
      );
      return {
        message_id: reply.messageId,
        session_id: reply.sessionId,
        content: reply.content,
        role: reply.role,
        model: reply.model,
        usage: {
          prompt_tokens: reply.usage?.promptTokens ?? 0,
          completion_tokens: reply.usage?.completionTokens ?? 0,
          total_tokens: reply.usage?.totalTokens ?? 0,
        },
        created_at: reply.createdAt,
        steps: reply.steps.map((s) => ({
          type: s.type,
          tool: s.tool,
          arguments: (s.arguments ?? {}) as JsonObject,
          ...(s.error !== undefined ? { error: s.error } : { output: (s.output ?? null) as JsonValue }),
          duration_ms: s.durationMs,
        })),
      };
    },
  };
}
