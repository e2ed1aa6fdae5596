import { DomainError } from '@agentplatform/service-kit';
import type { Agent } from '../domain/agent.js';
import { MEMORY_TYPES } from '../domain/agent.js';
import type { AgentMemory } from '../domain/memory.js';
import { ToolError, type Tool } from './tool.js';

const SEARCH_TOP_K = 5;

/** Validation and quota refusals reach the model as tool errors with the platform's message. */
function asToolError(error: unknown): never {
  if (error instanceof DomainError && error.code !== 'internal_error') {
    const details = (error.details ?? []).map((d) => `${d.field} ${d.message}`).join('; ');
    throw new ToolError(details ? `${error.message}: ${details}` : error.message);
  }
  throw error;
}

export function memorySearchTool(memory: AgentMemory): Tool {
  return {
    name: 'memory_search',
    description:
      "Search this agent's memory; returns the most relevant memory items, best first, with a score in [0, 1].",
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        top_k: { type: 'integer', minimum: 1, maximum: 20, description: `How many results (default ${SEARCH_TOP_K})` },
      },
      required: ['query'],
    },
    async run(args) {
      const query = typeof args.query === 'string' ? args.query : '';
      const topK = Number.isInteger(args.top_k) ? Math.min(20, Math.max(1, args.top_k as number)) : SEARCH_TOP_K;
      const found = await memory.search(query, topK).catch(asToolError);
      return {
        results: found.map(({ item, score }) => ({
          id: item.id,
          content: item.content,
          score: Math.round(score * 1e4) / 1e4,
          memory_type: item.memoryType,
          metadata: item.metadata,
        })),
      };
    },
  };
}

export function memoryAddTool(memory: AgentMemory, agent: Agent): Tool {
  const types = MEMORY_TYPES.filter((t) => agent.memoryTypes.includes(t));
  return {
    name: 'memory_add',
    description: "Store a fact in this agent's memory so later conversations can use it.",
    parameters: {
      type: 'object',
      properties: {
        content: { type: 'string', description: 'The fact to remember' },
        memory_type: { type: 'string', enum: types, description: 'Default: semantic' },
        metadata: { type: 'object', description: 'Optional key/value metadata' },
      },
      required: ['content'],
    },
    async run(args) {
      const metadata =
        typeof args.metadata === 'object' && args.metadata !== null && !Array.isArray(args.metadata)
          ? (args.metadata as Record<string, unknown>)
          : {};
      const item = await memory
        .add({
          content: typeof args.content === 'string' ? args.content : '',
          memoryType: typeof args.memory_type === 'string' ? args.memory_type : undefined,
          metadata: { ...metadata, source: 'tool' },
        })
        .catch(asToolError);
      return { id: item.id, memory_type: item.memoryType, content: item.content };
    },
  };
}
