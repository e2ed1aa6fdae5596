import { z } from 'zod';
import { pageParams } from '../../http/paging.js';

/*
 * Allowed values of DESIGN.md section 6. The agent-memory service checks them too (it is the
 * authority for gRPC callers); they are repeated here so the OpenAPI document lists them.
 */
export const AGENT_TYPES = ['assistant', 'support', 'sales', 'research', 'custom'] as const;
export const AGENT_STATUSES = ['active', 'inactive'] as const;
export const MEMORY_TYPES = ['semantic', 'episodic', 'procedural'] as const;

const configShape = {
  model: z.string().trim().min(1).max(200).describe('Model name passed to the LLM provider'),
  temperature: z.number().min(0).max(2),
  max_tokens: z.number().int().min(1).max(32_768).describe('Upper bound of the reply length in tokens'),
  system_prompt: z.string().max(16_000),
};

/** Unknown config keys are dropped, like unknown body fields. */
export const agentConfig = z.object({
  model: configShape.model.optional(),
  temperature: configShape.temperature.optional(),
  max_tokens: configShape.max_tokens.optional(),
  system_prompt: configShape.system_prompt.optional(),
});

/** In a PATCH, a config key set to null is removed; other keys are merged into the stored config. */
const agentConfigPatch = z.object({
  model: configShape.model.nullable().optional(),
  temperature: configShape.temperature.nullable().optional(),
  max_tokens: configShape.max_tokens.nullable().optional(),
  system_prompt: configShape.system_prompt.nullable().optional(),
});

export const createAgentBody = z.object({
  name: z.string().trim().min(1).max(200),
  type: z.enum(AGENT_TYPES),
  description: z.string().max(2_000).optional(),
  memory_types: z.array(z.enum(MEMORY_TYPES)).optional().describe('Default: semantic and episodic'),
  config: agentConfig.optional(),
  status: z.enum(AGENT_STATUSES).optional().describe('Default: active'),
});

export const updateAgentBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  type: z.enum(AGENT_TYPES).optional(),
  description: z.string().max(2_000).optional(),
  memory_types: z.array(z.enum(MEMORY_TYPES)).optional(),
  config: agentConfigPatch.optional(),
  status: z.enum(AGENT_STATUSES).optional(),
});

export const listAgentsQuery = z.object({
  ...pageParams,
  type: z.enum(AGENT_TYPES).optional(),
  status: z.enum(AGENT_STATUSES).optional(),
});

export const agentParams = z.object({ agent_id: z.string().min(1) });
export const sessionParams = z.object({ agent_id: z.string().min(1), session_id: z.string().min(1) });

export const pageQuery = z.object({
  ...pageParams,
});

export const agentResponse = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(AGENT_TYPES),
  status: z.enum(AGENT_STATUSES),
  description: z.string(),
  memory_types: z.array(z.enum(MEMORY_TYPES)),
  config: agentConfig,
  created_at: z.string(),
  updated_at: z.string(),
});

export const agentListResponse = z.object({
  agents: z.array(agentResponse),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const deleteResponse = z.object({ success: z.boolean(), message: z.string() });

export const chatBody = z.object({
  message: z.string().min(1).max(32_000),
  session_id: z.string().min(1).optional().describe('Absent: a new session, whose id the answer carries'),
});

const usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

export const chatResponse = z
  .object({
    id: z.string(),
    session_id: z.string(),
    content: z.string(),
    role: z.literal('assistant'),
    model: z.string().describe('`local` when the built-in offline responder answered'),
    usage,
    credits_used: z.number().int(),
    latency_ms: z.number().int(),
    created_at: z.string(),
  })
  .describe(
    'With `Accept: text/event-stream` the answer is a server-sent event stream instead: `start` ' +
      '{id, session_id, user_message_id, model}, then `delta` {content} pieces, then `done` with this ' +
      'object; a failure after the stream started is an `error` event {error, message}.',
  );

export const sessionListResponse = z.object({
  sessions: z.array(
    z.object({
      id: z.string(),
      agent_id: z.string(),
      title: z.string(),
      message_count: z.number().int(),
      created_at: z.string(),
      last_message_at: z.string(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const messageListResponse = z.object({
  messages: z.array(
    z.object({
      id: z.string(),
      session_id: z.string(),
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      model: z.string().optional(),
      usage: usage.optional(),
      created_at: z.string(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
