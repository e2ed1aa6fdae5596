import type { FieldIssue } from '@agentplatform/service-kit';
import { LIMITS, MEMORY_TYPES, type Agent, type MemoryType } from './agent.js';

/** A memory's content: not blank, at most LIMITS.memoryContent characters. Answers it trimmed. */
export function checkContent(content: string, issues: FieldIssue[]): string {
  const trimmed = content.trim();
  if (trimmed === '') issues.push({ field: 'content', message: 'must not be empty' });
  else if (content.length > LIMITS.memoryContent) {
    issues.push({ field: 'content', message: `must be at most ${LIMITS.memoryContent} characters` });
  }
  return trimmed;
}

/** A memory type must be a known one and enabled in the agent's memory_types. */
export function checkMemoryType(
  agent: Pick<Agent, 'memoryTypes'> | undefined,
  value: string,
  issues: FieldIssue[],
): MemoryType {
  if (!(MEMORY_TYPES as readonly string[]).includes(value)) {
    issues.push({ field: 'memory_type', message: `must be one of ${MEMORY_TYPES.join(', ')}` });
  } else if (agent && !agent.memoryTypes.includes(value as MemoryType)) {
    issues.push({
      field: 'memory_type',
      message: `is not enabled for this agent (memory_types: ${agent.memoryTypes.join(', ') || 'none'})`,
    });
  }
  return value as MemoryType;
}
