import { ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import { TOOL_LIMITS, validateTools, type ToolGrant } from './tools.js';

/** Allowed values (docs/design.md section 6). The gateway's request schemas repeat them for OpenAPI. */
export const AGENT_TYPES = ['assistant', 'support', 'sales', 'research', 'custom'] as const;
export const AGENT_STATUSES = ['active', 'inactive'] as const;
export const MEMORY_TYPES = ['semantic', 'episodic', 'procedural'] as const;
export const DEFAULT_MEMORY_TYPES: MemoryType[] = ['semantic', 'episodic'];

export type AgentType = (typeof AGENT_TYPES)[number];
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const LIMITS = {
  name: 200,
  description: 2_000,
  model: 200,
  systemPrompt: 16_000,
  maxTokens: 32_768,
  message: 32_000,
  memoryContent: 20_000,
  /** Items of one batch add (`POST /memory/batch`, `AddMemories`). */
  memoryBatch: 100,
} as const;

export interface AgentConfig {
  model?: string;
  temperature?: number;
  max_tokens?: number;
  system_prompt?: string;
  /** Tool grants (docs/design.md section 9); http and mcp header values sealed. */
  tools?: ToolGrant[];
  /** Model rounds of a chat with tools (default 8, 1 to 32). */
  max_steps?: number;
  /** Per tool call (default 30 s). */
  tool_timeout_ms?: number;
}

export interface Agent {
  id: string;
  tenantId: string;
  name: string;
  type: AgentType;
  status: AgentStatus;
  description: string;
  memoryTypes: MemoryType[];
  config: AgentConfig;
  createdAt: Date;
  updatedAt: Date;
  /** Bumped after every write to the agent's memory items; search caches compare it. */
  memoryVersion: number;
}

export interface AgentInput {
  name?: string;
  type?: string;
  status?: string;
  description?: string;
  memoryTypes?: string[];
  /** For updates: keys set to null are removed. */
  config?: Record<string, unknown>;
}

function oneOf<T extends string>(allowed: readonly T[], value: string, field: string, issues: FieldIssue[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    issues.push({ field, message: `must be one of ${allowed.join(', ')}` });
  }
  return value as T;
}

/** Checks the config keys this platform knows; other keys are ignored (dropped), like unknown body fields. */
export function validateConfig(
  raw: Record<string, unknown>,
  issues: FieldIssue[],
  { allowNull }: { allowNull: boolean },
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const check = (key: keyof AgentConfig, test: (v: unknown) => string | undefined) => {
    if (!(key in raw) || raw[key] === undefined) return;
    const value = raw[key];
    if (value === null) {
      if (allowNull) out[key] = null;
      else issues.push({ field: `config.${key}`, message: 'must not be null' });
      return;
    }
    const problem = test(value);
    if (problem) issues.push({ field: `config.${key}`, message: problem });
    else out[key] = typeof value === 'string' ? value.trim() : value;
  };
  check('model', (v) =>
    typeof v !== 'string' || v.trim() === '' || v.length > LIMITS.model
      ? `must be a non-empty string of at most ${LIMITS.model} characters`
      : undefined,
  );
  check('temperature', (v) =>
    typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 2 ? 'must be a number from 0 to 2' : undefined,
  );
  check('max_tokens', (v) =>
    typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > LIMITS.maxTokens
      ? `must be an integer from 1 to ${LIMITS.maxTokens}`
      : undefined,
  );
  check('system_prompt', (v) =>
    typeof v !== 'string' || v.length > LIMITS.systemPrompt
      ? `must be a string of at most ${LIMITS.systemPrompt} characters`
      : undefined,
  );
  check('max_steps', (v) =>
    typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > TOOL_LIMITS.maxSteps
      ? `must be an integer from 1 to ${TOOL_LIMITS.maxSteps}`
      : undefined,
  );
  check('tool_timeout_ms', (v) =>
    typeof v !== 'number' || !Number.isInteger(v) || v < TOOL_LIMITS.minTimeoutMs || v > TOOL_LIMITS.maxTimeoutMs
      ? `must be an integer from ${TOOL_LIMITS.minTimeoutMs} to ${TOOL_LIMITS.maxTimeoutMs}`
      : undefined,
  );
  if ('tools' in raw && raw.tools !== undefined) {
    if (raw.tools === null) {
      if (allowNull) out.tools = null;
      else issues.push({ field: 'config.tools', message: 'must not be null' });
    } else {
      const tools = validateTools(raw.tools, issues);
      if (tools) out.tools = tools;
    }
  }
  return out;
}

export interface ValidAgentFields {
  name?: string;
  type?: AgentType;
  status?: AgentStatus;
  description?: string;
  memoryTypes?: MemoryType[];
  config?: Record<string, unknown>;
}

/**
 * Validates create or update input; every wrong field is reported, named as the HTTP body names it.
 * On create, `name` and `type` are required.
 */
export function validateAgentInput(input: AgentInput, mode: 'create' | 'update'): ValidAgentFields {
  const issues: FieldIssue[] = [];
  const out: ValidAgentFields = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (name === '' || name.length > LIMITS.name) {
      issues.push({ field: 'name', message: `must be 1 to ${LIMITS.name} characters` });
    }
    out.name = name;
  } else if (mode === 'create') {
    issues.push({ field: 'name', message: 'is required' });
  }
  if (input.type !== undefined) out.type = oneOf(AGENT_TYPES, input.type, 'type', issues);
  else if (mode === 'create') issues.push({ field: 'type', message: 'is required' });
  if (input.status !== undefined) out.status = oneOf(AGENT_STATUSES, input.status, 'status', issues);
  if (input.description !== undefined) {
    if (input.description.length > LIMITS.description) {
      issues.push({ field: 'description', message: `must be at most ${LIMITS.description} characters` });
    }
    out.description = input.description;
  }
  if (input.memoryTypes !== undefined) {
    input.memoryTypes.forEach((value, index) => oneOf(MEMORY_TYPES, value, `memory_types[${index}]`, issues));
    out.memoryTypes = [...new Set(input.memoryTypes)] as MemoryType[];
  }
  if (input.config !== undefined) out.config = validateConfig(input.config, issues, { allowNull: mode === 'update' });
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}

/** A config patch: keys set to null are removed, others replace. */
export function mergeConfig(current: AgentConfig, patch: Record<string, unknown>): AgentConfig {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next as AgentConfig;
}
