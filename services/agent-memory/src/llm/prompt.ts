import type { Agent } from '../domain/agent.js';
import type { LlmMessage } from './llm-provider.js';

export const DEFAULT_TEMPERATURE = 0.7;
export const DEFAULT_MAX_TOKENS = 1024;

/** The system prompt: the agent's own, or one made from its name, type and description. */
export function systemPrompt(agent: Agent): string {
  const own = agent.config.system_prompt?.trim();
  if (own) return own;
  const description = agent.description.trim() ? ` ${agent.description.trim()}` : '';
  return `You are ${agent.name}, a helpful ${agent.type} agent.${description}`;
}

/**
 * System prompt (with the caller's own system messages after the agent's) with the retrieved
 * memories, then the recent turns, then the new message.
 */
export function buildPrompt(
  agent: Agent,
  history: LlmMessage[],
  memories: ReadonlyArray<{ content: string }>,
  userMessage: string,
  instructions: readonly string[] = [],
): LlmMessage[] {
  let system = [systemPrompt(agent), ...instructions].join('\n\n');
  if (memories.length > 0) {
    system +=
      '\n\nRelevant memories (most relevant first; use them when they help answer):\n' +
      memories.map((m) => `- ${m.content}`).join('\n');
  }
  return [{ role: 'system', content: system }, ...history, { role: 'user', content: userMessage }];
}
