import { z } from 'zod';
import { SESSION_ID } from '../agents/agents.schemas.js';

/** The start of the message of every 400 for a parameter of OpenAI's API that agents do not take. */
export const UNSUPPORTED = 'is not supported';

/** A text part of a message's content (images, audio and files are not supported). */
const textPart = z.object({ type: z.literal('text'), text: z.string() });

const message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(z.union([textPart, z.object({ type: z.string() }).passthrough()])), z.null()]),
  name: z.string().optional(),
  tool_calls: z.array(z.unknown()).optional(),
});

/**
 * Parameters of OpenAI's API that an agent cannot honour, each with the values that mean "as if
 * absent" (what clients send by default). Any other value is a 400 naming it, never ignored.
 */
const UNSUPPORTED_PARAMETERS: Record<string, { harmless: (value: unknown) => boolean; why: string }> = {
  n: { harmless: (v) => v === 1, why: 'an agent gives one answer per turn' },
  tools: {
    harmless: (v) => Array.isArray(v) && v.length === 0,
    why: 'agents run their own tools (config.tools); their calls come back in agent_steps',
  },
  tool_choice: { harmless: (v) => v === 'none' || v === 'auto', why: 'agents run their own tools' },
  functions: { harmless: (v) => Array.isArray(v) && v.length === 0, why: 'agents run their own tools' },
  function_call: { harmless: (v) => v === 'none' || v === 'auto', why: 'agents run their own tools' },
  logprobs: { harmless: (v) => v === false, why: 'the agent does not report token probabilities' },
  top_logprobs: { harmless: (v) => v === 0, why: 'the agent does not report token probabilities' },
  logit_bias: {
    harmless: (v) => typeof v === 'object' && v !== null && Object.keys(v).length === 0,
    why: 'the agent’s model is not biased per request',
  },
  response_format: {
    harmless: (v) => typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'text',
    why: 'agents answer in text',
  },
  modalities: {
    harmless: (v) => Array.isArray(v) && v.length === 1 && v[0] === 'text',
    why: 'agents answer in text',
  },
  audio: { harmless: () => false, why: 'agents answer in text' },
  prediction: { harmless: () => false, why: 'agents answer in text' },
  stop: {
    harmless: (v) => (Array.isArray(v) && v.length === 0) || v === '',
    why: 'the agent’s model is not given stop sequences',
  },
  top_p: { harmless: (v) => v === 1, why: 'agents take only temperature' },
  presence_penalty: { harmless: (v) => v === 0, why: 'agents take only temperature' },
  frequency_penalty: { harmless: (v) => v === 0, why: 'agents take only temperature' },
};

/** A token count: anything the agent's own limit caps (the wire carries an int32). */
const positiveInt = z.number().int().min(1).max(2_147_483_647);

/** `POST /openai/v1/chat/completions` (docs/openai-compatibility.md). */
export const chatCompletionBody = z
  .object({
    model: z.string().min(1).describe('The id of one of your agents (GET /openai/v1/models)'),
    messages: z.array(message).min(1).max(1_000),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    max_tokens: positiveInt.nullish(),
    max_completion_tokens: positiveInt.nullish(),
    user: z
      .string()
      .regex(SESSION_ID, 'must be 1 to 128 characters of [A-Za-z0-9._:-] (it names the session)')
      .optional()
      .describe('The session to continue (like X-Session-Id, which wins when both are given)'),
  })
  .passthrough()
  .superRefine((body, ctx) => {
    const raw = body as Record<string, unknown>;
    for (const [name, rule] of Object.entries(UNSUPPORTED_PARAMETERS)) {
      const value = raw[name];
      if (value === undefined || value === null || rule.harmless(value)) continue;
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [name], message: `${UNSUPPORTED}: ${rule.why}` });
    }
    body.messages.forEach((m, i) => {
      if (m.role === 'tool' || m.role === 'function' || (m.tool_calls && m.tool_calls.length > 0)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['messages', i, 'role'],
          message: `${UNSUPPORTED}: agents run their own tools, so a conversation holds no client tool calls`,
        });
      }
      if (Array.isArray(m.content) && m.content.some((p) => p.type !== 'text')) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['messages', i, 'content'],
          message: `${UNSUPPORTED}: agents take text parts only`,
        });
      }
    });
    if (!body.messages.some((m) => m.role === 'user')) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['messages'], message: 'must hold a user message' });
    }
  });

export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;

export const modelParams = z.object({ model: z.string().min(1) });

const model = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  name: z.string().describe('The agent’s name'),
});
export const modelResponse = model;
export const modelListResponse = z.object({ object: z.literal('list'), data: z.array(model) });

const usage = z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() });
const agentStep = z.object({
  type: z.literal('tool_call'),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  output: z.unknown().optional(),
  error: z.string().optional(),
  duration_ms: z.number(),
});

export const chatCompletionResponse = z.object({
  id: z.string().describe('The reply’s message id (stored only in a session)'),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number(),
      message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
      finish_reason: z
        .enum(['stop', 'length'])
        .describe('`length` when the credits could not cover the next model round and the turn ended early'),
      logprobs: z.null(),
    }),
  ),
  usage,
  agent_steps: z.array(agentStep).describe('The tool calls the agent made in the turn (not OpenAI tool calls)'),
});
