import {
  chatCost,
  type ChatMessage,
  type ChatReservation,
  type PendingCharge,
  type Session,
  type ToolStep,
} from '../domain/chat.js';
import type { ChargeDueDocument, MessageDocument, ReservationDocument, SessionDocument } from './chat.schema.js';

export function toSession(doc: SessionDocument): Session {
  return {
    id: doc._id,
    key: doc.key ?? doc._id,
    tenantId: doc.tenant_id,
    agentId: doc.agent_id,
    title: doc.title ?? '',
    messageCount: doc.message_count ?? 0,
    createdAt: doc.created_at,
    lastMessageAt: doc.last_message_at,
  };
}

export function toSessionDocument(session: Session): SessionDocument {
  return {
    _id: session.id,
    key: session.key,
    tenant_id: session.tenantId,
    agent_id: session.agentId,
    title: session.title,
    message_count: session.messageCount,
    created_at: session.createdAt,
    last_message_at: session.lastMessageAt,
  };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toStep(step: NonNullable<MessageDocument['step']>): ToolStep {
  const args = parseJson(step.arguments_json);
  return {
    type: 'tool_call',
    tool: step.tool,
    arguments: isRecord(args) ? args : {},
    ...(step.output_json !== undefined ? { output: parseJson(step.output_json) } : {}),
    ...(step.error !== undefined ? { error: step.error } : {}),
    durationMs: step.duration_ms,
  };
}

export function toMessage(doc: MessageDocument): ChatMessage {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    agentId: doc.agent_id,
    sessionId: doc.session_id,
    role: doc.role,
    content: doc.content,
    ...(doc.step ? { step: toStep(doc.step) } : {}),
    model: doc.model,
    usage: doc.usage
      ? {
          promptTokens: doc.usage.prompt_tokens,
          completionTokens: doc.usage.completion_tokens,
          totalTokens: doc.usage.total_tokens,
        }
      : undefined,
    latencyMs: doc.latency_ms,
    credits: doc.credits,
    createdAt: doc.created_at,
  };
}

/** The stored document, without absent fields (they are written as is, not through a mongoose document). */
export function toMessageDocument(m: ChatMessage): MessageDocument {
  return {
    _id: m.id,
    tenant_id: m.tenantId,
    agent_id: m.agentId,
    session_id: m.sessionId,
    role: m.role,
    content: m.content,
    ...(m.step
      ? {
          step: {
            tool: m.step.tool,
            arguments_json: JSON.stringify(m.step.arguments),
            ...(m.step.output !== undefined ? { output_json: JSON.stringify(m.step.output) } : {}),
            ...(m.step.error !== undefined ? { error: m.step.error } : {}),
            duration_ms: m.step.durationMs,
          },
        }
      : {}),
    ...(m.model !== undefined ? { model: m.model } : {}),
    ...(m.usage
      ? {
          usage: {
            prompt_tokens: m.usage.promptTokens,
            completion_tokens: m.usage.completionTokens,
            total_tokens: m.usage.totalTokens,
          },
        }
      : {}),
    ...(m.latencyMs !== undefined ? { latency_ms: m.latencyMs } : {}),
    ...(m.credits !== undefined ? { credits: m.credits } : {}),
    created_at: m.createdAt,
  };
}

const toReservation = (r: ReservationDocument): ChatReservation => ({ operationId: r.operation_id, amount: r.amount });
const toReservationDocument = (r: ChatReservation): ReservationDocument => ({
  operation_id: r.operationId,
  amount: r.amount,
});

export function toPendingCharge(doc: ChargeDueDocument): PendingCharge {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    credits: doc.credits,
    totalTokens: doc.total_tokens,
    ...(doc.reservations ? { reservations: doc.reservations.map(toReservation) } : {}),
    createdAt: doc.created_at,
  };
}

export function toChargeDueDocument(charge: PendingCharge): ChargeDueDocument {
  return {
    _id: charge.id,
    tenant_id: charge.tenantId,
    credits: charge.credits,
    total_tokens: charge.totalTokens,
    ...(charge.reservations ? { reservations: charge.reservations.map(toReservationDocument) } : {}),
    created_at: charge.createdAt,
  };
}

/** The due entry of a reply stored with `charge_pending` by a release before the due entries. */
export function toLegacyChargeDueDocument(doc: MessageDocument): ChargeDueDocument {
  const totalTokens = doc.usage?.total_tokens ?? 0;
  return {
    _id: doc._id,
    tenant_id: doc.tenant_id,
    credits: doc.credits ?? chatCost(totalTokens),
    total_tokens: totalTokens,
    ...(doc.reservations ? { reservations: doc.reservations } : {}),
    created_at: doc.created_at,
  };
}
