/** The ten event types of docs/api-guide.md, "Events and webhooks". Event names live only here. */
export const EVENT_TYPES = [
  'agent.message.created',
  'agent.message.completed',
  'agent.created',
  'agent.updated',
  'workflow.execution.started',
  'workflow.execution.completed',
  'workflow.execution.failed',
  'memory.consolidated',
  'billing.credits.low',
  'billing.purchase.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Shorter names a subscription may use for a full type (docs/api-guide.md, "Events and webhooks";
 * docs/design.md section 8).
 */
export const EVENT_ALIASES: Readonly<Record<string, EventType>> = {
  'workflow.completed': 'workflow.execution.completed',
};

/** The date-formatted version every envelope carries. */
export const API_VERSION = '2026-11-01';

/**
 * The broker's message limit (`message.max.bytes` / `max.message.bytes`, set explicitly in
 * deploy/compose.yaml, the k8s manifests and deploy/local/infra.js). The outbox relay holds itself
 * to it (MAX_SEND_BYTES) and never sends what the broker would refuse.
 */
export const KAFKA_MESSAGE_MAX_BYTES = 1024 * 1024;

/**
 * The most output (serialised JSON) an execution event carries: a larger one is left out and the
 * event says `output_truncated: true` (docs/design.md section 7), so that every event fits the
 * broker's limit with room to spare, and receivers are not sent megabytes per event.
 */
export const EVENT_OUTPUT_MAX_BYTES = 256 * 1024;

/** Kafka header names. */
export const EVENT_HEADERS = {
  type: 'event-type',
  id: 'event-id',
  requestId: 'request-id',
  /** The W3C trace context (tracing on); consumers continue the producer's trace from it. */
  traceparent: 'traceparent',
} as const;

/**
 * The shape every event type name has: dotted lower-case segments (`agent.message.created`). A
 * consumer accepts any name of this shape, not only the types it knows: a newer service may
 * publish a new type during a rolling upgrade, and an older consumer must pass it on, not drop it.
 */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** Longest event type name a consumer accepts. */
export const EVENT_TYPE_MAX_LENGTH = 128;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** Data carried by each event type. */
export interface EventData {
  'agent.message.created': {
    agent_id: string;
    conversation_id: string;
    message_id: string;
    content: string;
  };
  'agent.message.completed': {
    agent_id: string;
    conversation_id: string;
    message_id: string;
    content: string;
    tokens_used: number;
    latency_ms: number;
    /** Tool calls the turn made (docs/design.md section 9); 0 for a turn without tools. */
    tool_calls: number;
  };
  'agent.created': { agent_id: string; name: string; type: string; status: string };
  'agent.updated': { agent_id: string; changed: string[]; status: string };
  'workflow.execution.started': {
    workflow_id: string;
    execution_id: string;
    trigger: string;
    /** The failed or cancelled execution this run retries. */
    retry_of?: string;
    /** The execution whose workflow or foreach node started this run. */
    parent_execution_id?: string;
  };
  'workflow.execution.completed': {
    workflow_id: string;
    execution_id: string;
    /** manual, webhook or schedule: what started the run. */
    trigger: string;
    duration_ms: number;
    /** The execution's output; left out when larger than EVENT_OUTPUT_MAX_BYTES. */
    output?: Record<string, unknown>;
    /** Whether `output` was left out for its size: GET `execution_url` has it whole. */
    output_truncated: boolean;
    /** The execution's path in the API (`/api/v1/workflows/{id}/executions/{id}`), where its whole output is. */
    execution_url: string;
    retry_of?: string;
    parent_execution_id?: string;
  };
  'workflow.execution.failed': {
    workflow_id: string;
    execution_id: string;
    /** manual, webhook or schedule: what started the run. */
    trigger: string;
    duration_ms: number;
    error: string;
    failed_node_id?: string;
    retry_of?: string;
    parent_execution_id?: string;
  };
  'memory.consolidated': { agent_id: string; merged: number; removed: number; remaining: number };
  'billing.credits.low': { balance: number; threshold: number };
  'billing.purchase.completed': { purchase_id: string; credits: number; balance: number };
}

/** The JSON envelope delivered to webhooks (docs/api-guide.md, "Events and webhooks"). */
export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  created_at: string;
  data: EventData[T];
  tenant_id: string;
  api_version: string;
}

/**
 * An envelope as read from the topic: the same fields, but its type may be one this code does not
 * know yet (published by a newer service), so neither the type nor the data is narrowed.
 */
export interface ReceivedEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: object;
  tenant_id: string;
  api_version: string;
}
