import type { Dispatcher } from 'undici';
import { callHttp, DomainError, HttpCallError } from '@agentplatform/service-kit';
import type { AgentDirectory } from '../clients/agents.client.js';
import { ExpressionError, ExpressionResourceError, isInlineSafe, type ExpressionScope } from '../domain/expressions.js';
import { computeNode, nodeExpressions } from '../domain/node-expressions.js';
import type { JsonObject, JsonValue, WorkflowNode } from '../domain/workflow.types.js';
import { ExpressionBudgetExceeded, SandboxExpressionError, type ExpressionRunner } from './expression-sandbox.js';

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
  expressions: ExpressionRunner;
}

/** Nodes without side effects or waits: re-running them after a crash is harmless and cheap. */
export function isPure(node: WorkflowNode): boolean {
  return node.type === 'webhook' || node.type === 'schedule' || node.type === 'transform' || node.type === 'condition';
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

export const BUDGET_CODE = 'expression_budget_exceeded';

/**
 * A node's CEL work, computed by the expression sandbox (off the event loop, under the budget).
 * Over budget is a failure even for a condition (DESIGN.md section 7), and never retried.
 */
async function compute(input: NodeRunInput, deps: NodeRunnerDeps): Promise<JsonObject> {
  try {
    // Without a CEL expression (a static URL and body, the default message), or with only
    // expressions under the static cost bound, the work is bounded already: no thread hop.
    if (nodeExpressions(input.node).every(isInlineSafe)) return inline(input);
    return await deps.expressions.compute(
      { tenantId: input.tenantId, node: input.node, scope: input.scope },
      input.signal,
    );
  } catch (error) {
    if (error instanceof ExpressionBudgetExceeded) {
      throw new NodeError(`${BUDGET_CODE}: ${error.message}`, false, {
        error: {
          code: BUDGET_CODE,
          expression: error.expression ?? null,
          budget_ms: error.budgetMs,
          resource: error.resource,
        },
      });
    }
    if (error instanceof SandboxExpressionError) throw new NodeError(`expression error: ${error.message}`, false);
    throw error;
  }
}

function inline(input: NodeRunInput): JsonObject {
  try {
    return computeNode(input.node, input.scope);
  } catch (error) {
    if (error instanceof ExpressionError || error instanceof ExpressionResourceError) {
      throw new SandboxExpressionError(error.message);
    }
    throw error;
  }
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
  const rendered = await compute(input, deps);
  const message = String(rendered.message);
  const sessionId = typeof rendered.session_id === 'string' ? rendered.session_id : undefined;
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
  const rendered = await compute(input, deps);
  const url = String(rendered.url);
  const headers = rendered.headers as Record<string, string>;
  const body = rendered.body as JsonValue;
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
    case 'schedule':
      return input.scope.previous;
    case 'transform':
      return input.node.config.fields === undefined ? input.scope.previous : compute(input, deps);
    case 'condition':
      return compute(input, deps);
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
