import type { Dispatcher } from 'undici';
import { DomainError } from '@agentplatform/service-kit';
import type { AgentDirectory } from '../clients/agents.client.js';
import {
  ExpressionError,
  asText,
  evaluator,
  renderDeep,
  renderTemplate,
  type ExpressionScope,
} from '../domain/expressions.js';
import type { JsonObject, JsonValue, WorkflowNode } from '../domain/workflow.types.js';
import { HttpCallError, callHttp } from './http-request.js';

/** A node failure; `retryable` says whether another attempt could succeed. */
export class NodeError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly output?: JsonObject,
  ) {
    super(message);
    this.name = 'NodeError';
  }
}

export interface NodeRunInput {
  tenantId: string;
  node: WorkflowNode;
  scope: ExpressionScope;
  signal: AbortSignal;
  timeoutMs: number;
  /** When a delay was started before a crash: it only waits for what is left. */
  resumedFrom?: Date;
}

export interface NodeRunnerDeps {
  agents: AgentDirectory;
  http: Dispatcher;
}

/** Nodes without side effects or waits: re-running them after a crash is harmless and cheap. */
export function isPure(node: WorkflowNode): boolean {
  return node.type === 'webhook' || node.type === 'transform' || node.type === 'condition';
}

/**
 * Whether a node interrupted by a crash may simply run again. An agent chat would post and charge a
 * second message, and a POST or PATCH is not idempotent; an interrupted one fails the execution.
 */
export function isSafeToRepeat(node: WorkflowNode): boolean {
  if (node.type === 'agent') return false;
  if (node.type === 'integration') {
    const method = String(node.config.method ?? 'POST').toUpperCase();
    return method === 'GET' || method === 'HEAD' || method === 'PUT' || method === 'DELETE';
  }
  return true;
}

function wrapExpression<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ExpressionError) throw new NodeError(`expression error: ${error.message}`, false);
    throw error;
  }
}

/** The condition node: first rule whose `if` is true wins, else the `else`. */
export function runCondition(input: NodeRunInput): JsonObject {
  const evaluateOne = evaluator(input.scope);
  const rules = input.node.config.rules as Array<{ if?: string; goto?: string; else?: string }>;
  const evaluations: JsonObject[] = [];
  for (const [i, rule] of rules.entries()) {
    if (rule.if === undefined) continue;
    try {
      const result = evaluateOne(rule.if);
      if (typeof result !== 'boolean') {
        evaluations.push({
          rule: i,
          if: rule.if,
          matched: false,
          reason: `did not evaluate to a bool (got ${asText(result)})`,
        });
        continue;
      }
      evaluations.push({ rule: i, if: rule.if, matched: result });
      if (result) return { branch: `rules[${i}]`, goto: rule.goto!, evaluations };
    } catch (error) {
      // A rule that cannot be evaluated on the data at hand (missing field, type mismatch) is not matched.
      if (!(error instanceof ExpressionError)) throw error;
      evaluations.push({ rule: i, if: rule.if, matched: false, reason: error.message });
    }
  }
  const fallback = rules.find((r) => r.else !== undefined);
  if (fallback) return { branch: 'else', goto: fallback.else!, evaluations };
  return { branch: null, goto: null, evaluations };
}

function runTransform(input: NodeRunInput): JsonObject {
  const fields = input.node.config.fields as Record<string, string> | undefined;
  if (!fields) return input.scope.previous;
  const evaluateOne = evaluator(input.scope);
  return wrapExpression(() => {
    const out: JsonObject = {};
    for (const [name, source] of Object.entries(fields)) out[name] = evaluateOne(source);
    return out;
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

async function runDelay(input: NodeRunInput): Promise<JsonObject> {
  const ms = Number(input.node.config.ms ?? 0);
  const elapsed = input.resumedFrom ? Date.now() - input.resumedFrom.getTime() : 0;
  await sleep(Math.max(0, ms - elapsed), input.signal);
  return input.scope.previous;
}

async function runAgent(input: NodeRunInput, deps: NodeRunnerDeps): Promise<JsonObject> {
  const config = input.node.config;
  const evaluateOne = evaluator(input.scope);
  const message = wrapExpression(() =>
    typeof config.message === 'string'
      ? asText(renderTemplate(config.message, evaluateOne))
      : JSON.stringify(input.scope.previous),
  );
  const sessionId = wrapExpression(() =>
    typeof config.session_id === 'string' ? asText(renderTemplate(config.session_id, evaluateOne)) : undefined,
  );
  if (message.trim() === '') throw new NodeError('the agent message is empty', false);
  try {
    const reply = await deps.agents.chat(
      { tenantId: input.tenantId, agentId: String(config.agent_id), message, sessionId: sessionId || undefined },
      { signal: input.signal, timeoutMs: input.timeoutMs },
    );
    return { ...reply };
  } catch (error) {
    if (input.signal.aborted) throw error;
    if (error instanceof DomainError) {
      const retryable =
        error.code === 'service_unavailable' || error.code === 'internal_error' || error.code === 'rate_limit_exceeded';
      throw new NodeError(`agent chat failed (${error.code}): ${error.message}`, retryable);
    }
    throw new NodeError(`agent chat failed: ${(error as Error).message}`, true);
  }
}

async function runHttp(input: NodeRunInput, deps: NodeRunnerDeps): Promise<JsonObject> {
  const config = input.node.config;
  const evaluateOne = evaluator(input.scope);
  const { url, headers, body } = wrapExpression(() => ({
    url: asText(renderTemplate(String(config.url), evaluateOne)),
    headers: Object.fromEntries(
      Object.entries((config.headers ?? {}) as Record<string, string>).map(([k, v]) => [
        k,
        asText(renderTemplate(v, evaluateOne)),
      ]),
    ),
    body: config.body === undefined ? (input.scope.previous as JsonValue) : renderDeep(config.body, evaluateOne),
  }));
  try {
    return await callHttp(
      { method: String(config.method ?? 'POST'), url, headers, body, timeoutMs: input.timeoutMs, signal: input.signal },
      deps.http,
    );
  } catch (error) {
    if (error instanceof HttpCallError) throw new NodeError(error.message, error.retryable, error.output);
    throw error;
  }
}

/** Runs one attempt of a node and returns its output. */
export async function runNode(input: NodeRunInput, deps: NodeRunnerDeps): Promise<JsonObject> {
  switch (input.node.type) {
    case 'webhook':
      return input.scope.previous;
    case 'transform':
      return runTransform(input);
    case 'condition':
      return runCondition(input);
    case 'delay':
      return runDelay(input);
    case 'agent':
      return runAgent(input, deps);
    case 'integration':
      return runHttp(input, deps);
    default:
      throw new NodeError(`unknown node type '${input.node.type}'`, false);
  }
}
