import { z } from 'zod';
import { pageParams } from '../../http/paging.js';

/*
 * Allowed values of docs/design.md section 6. The agent-memory service checks them too (it is the
 * authority for gRPC callers); they are repeated here so the OpenAPI document lists them.
 */
const AGENT_TYPES = ['assistant', 'support', 'sales', 'research', 'custom'] as const;
const AGENT_STATUSES = ['active', 'inactive'] as const;
export const MEMORY_TYPES = ['semantic', 'episodic', 'procedural'] as const;

/*
 * Tool grants (docs/design.md section 9). agent-memory checks them in full (JSON Schema shape, URL
 * templates, unique names, that a workflow is the tenant's); these schemas describe them.
 */
const toolName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/)
  .describe('The tool name the model sees: 1 to 64 characters of [A-Za-z0-9_-]');
const inputSchema = z
  .record(z.string(), z.unknown())
  .describe('JSON Schema (type "object") of the arguments the model gives');
const headers = z
  .record(z.string(), z.string())
  .describe('Header name -> value. Values are encrypted at rest and never returned (answers show header_names)');

const toolGrant = z.discriminatedUnion('type', [
  z.object({ type: z.literal('memory_search') }).describe("Search the agent's memory: {query, top_k?}"),
  z.object({ type: z.literal('memory_add') }).describe("Add to the agent's memory: {content, memory_type?, metadata?}"),
  z
    .object({
      type: z.literal('workflow'),
      workflow_id: z.string().min(1).describe('A workflow of the same tenant'),
      name: toolName.optional().describe('Default: workflow_<workflow_id>'),
      description: z.string().max(1_000).optional(),
      input_schema: inputSchema.optional(),
    })
    .describe("Runs the workflow with the arguments as input; the result is the execution's output (1 credit per run)"),
  z
    .object({
      type: z.literal('http'),
      name: toolName,
      description: z.string().max(1_000).optional(),
      url: z.string().max(2_000).describe('http(s) URL; `{{args.<name>}}` is replaced by that argument, URL-encoded'),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional().describe('Default: POST'),
      headers: headers.optional(),
      input_schema: inputSchema.optional(),
    })
    .describe(
      'An HTTP call through the SSRF guard: arguments as JSON body (GET, DELETE: as query); a non-2xx answer is an error step',
    ),
  z
    .object({
      type: z.literal('mcp'),
      name: z
        .string()
        .regex(/^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/)
        .max(64)
        .describe('The server name: its tools are named <name>__<tool>'),
      server_url: z.string().max(2_000).describe('A remote MCP server (Streamable HTTP)'),
      headers: headers.optional(),
      allowed_tools: z.array(z.string()).max(100).optional().describe('Only these tools of the server; default all'),
    })
    .describe('The tools of a remote MCP server, listed when a chat starts (cached briefly)'),
]);

const configShape = {
  model: z.string().trim().min(1).max(200).describe('Model name passed to the LLM provider'),
  temperature: z.number().min(0).max(2),
  max_tokens: z.number().int().min(1).max(32_768).describe('Upper bound of the reply length in tokens'),
  system_prompt: z.string().max(16_000),
  tools: z.array(toolGrant).max(32).describe('Tool grants (docs/design.md section 9); a PATCH replaces the whole list'),
  max_steps: z.number().int().min(1).max(32).describe('Model rounds that may call tools in one chat turn (default 8)'),
  tool_timeout_ms: z.number().int().min(100).max(120_000).describe('Time limit of one tool call (default 30000)'),
};

/** Unknown config keys are dropped, like unknown body fields. */
const agentConfig = z.object({
  model: configShape.model.optional(),
  temperature: configShape.temperature.optional(),
  max_tokens: configShape.max_tokens.optional(),
  system_prompt: configShape.system_prompt.optional(),
  tools: configShape.tools.optional(),
  max_steps: configShape.max_steps.optional(),
  tool_timeout_ms: configShape.tool_timeout_ms.optional(),
});

/** In a PATCH, a config key set to null is removed; other keys are merged into the stored config. */
const agentConfigPatch = z.object({
  model: configShape.model.nullable().optional(),
  temperature: configShape.temperature.nullable().optional(),
  max_tokens: configShape.max_tokens.nullable().optional(),
  system_prompt: configShape.system_prompt.nullable().optional(),
  tools: configShape.tools
    .nullable()
    .optional()
    .describe('Replaces the list; an http or mcp grant given without headers keeps those of the grant of that name'),
  max_steps: configShape.max_steps.nullable().optional(),
  tool_timeout_ms: configShape.tool_timeout_ms.nullable().optional(),
});

/** A grant as answers show it: header names, never their values. */
const publicGrant = z.union([
  z.object({ type: z.enum(['memory_search', 'memory_add']) }),
  z.object({
    type: z.literal('workflow'),
    workflow_id: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    input_schema: inputSchema.optional(),
  }),
  z.object({
    type: z.literal('http'),
    name: z.string(),
    description: z.string(),
    url: z.string(),
    method: z.string(),
    header_names: z.array(z.string()).optional(),
    input_schema: inputSchema.optional(),
  }),
  z.object({
    type: z.literal('mcp'),
    name: z.string(),
    server_url: z.string(),
    header_names: z.array(z.string()).optional(),
    allowed_tools: z.array(z.string()).optional(),
  }),
]);

const agentConfigResponse = agentConfig.extend({ tools: z.array(publicGrant).optional() });

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
  config: agentConfigResponse,
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

/** docs/design.md section 6: a client's own conversation id, created on first use. */
export const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const chatBody = z.object({
  message: z.string().min(1).max(32_000),
  session_id: z
    .string()
    .regex(SESSION_ID, 'must be 1 to 128 characters of [A-Za-z0-9._:-]')
    .optional()
    .describe(
      "Absent: a new session, whose id the answer carries. Given: the agent's session with that id " +
        '(1 to 128 characters of [A-Za-z0-9._:-], e.g. your own conversation id), created on first use; ' +
        'the same id on another agent is another session',
    ),
});

const toolStep = z
  .object({
    type: z.literal('tool_call'),
    tool: z.string().describe('memory_search, memory_add, a grant name, or <mcp server>__<tool>'),
    arguments: z.record(z.string(), z.unknown()),
    output: z.unknown().optional().describe('The JSON result, when the call succeeded'),
    error: z.string().optional().describe('Why the call failed (also refused, timed out); the model saw it'),
    duration_ms: z.number().int(),
  })
  .describe('One tool call of the turn');

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
    steps: z.array(toolStep).describe('The tool calls the turn made, in order (empty without tools)'),
    stop_reason: z
      .enum(['stop', 'max_tokens', 'insufficient_credits'])
      .describe(
        'Why the turn ended: `stop`, the model answered; `max_tokens`, the reply reached its token limit ' +
          'and was cut there; `insufficient_credits`, the balance could not ' +
          'cover the next model round, so the turn ended with the rounds it ran (`content` is what the ' +
          'model had said by then, possibly empty, and `credits_used` what they cost)',
      ),
  })
  .describe(
    'With `Accept: text/event-stream` the answer is a server-sent event stream instead: `start` ' +
      '{id, session_id, user_message_id, model}, then `delta` {content} pieces and a `step` event per ' +
      'finished tool call, then `done` with this object; a failure after the stream started is an ' +
      '`error` event {error, message}.',
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
      role: z.enum(['user', 'assistant', 'tool']),
      content: z.string().describe('Tool messages: the result as the model saw it (JSON)'),
      model: z.string().optional(),
      usage: usage.optional(),
      step: toolStep.optional().describe('Tool messages: the call and its result'),
      created_at: z.string(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
