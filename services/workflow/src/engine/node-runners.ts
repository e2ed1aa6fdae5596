import type { Dispatcher } from 'undici';
import { callHttp, DomainError, HttpCallError, type SecretBox } from '@agentplatform/service-kit';
import type { AgentDirectory } from '../clients/agents.client.js';
import { ExpressionError, ExpressionResourceError, isInlineSafe, type ExpressionScope } from '../domain/expressions.js';
import { computeNode, nodeExpressions } from '../domain/node-expressions.js';
import { LIMITS } from '../domain/node-config.js';
import { openHeaders, UnreadableHeaderError } from '../domain/sealed-headers.js';
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

/** Why a node's signal aborts when its timeout (or the execution's deadline) is reached. */
export class NodeTimeout extends Error {
  constructor() {
    super('node timed out');
    this.name = 'NodeTimeout';
  }
}

/** A child run of a workflow or foreach node, as far as the parent needs it. */
export interface ChildOutcome {
  executionId: string;
  status: 'completed' | 'failed' | 'cancelled';
  output?: JsonObject;
  error?: string;
}

export interface ChildRequest {
  tenantId: string;
  /** The parent execution, and the depth the child runs at (the parent's + 1). */
  parentExecutionId: string;
  parentNodeId: string;
  depth: number;
  /** The node attempt and the item index (0 for a workflow node): with the parent, they name the child. */
  attempt: number;
  index: number;
  workflowId: string;
  input: JsonObject;
  signal: AbortSignal;
  /** The node was interrupted by a crash: its children may exist already. */
  resumed: boolean;
}

/** Starts (or, after a crash, finds again) a child execution and waits for its end (use-cases/run-child.ts). */
export interface ChildRunner {
  run(request: ChildRequest): Promise<ChildOutcome>;
}

export interface NodeRunInput {
  tenantId: string;
  /** The execution the node runs in. */
  execution: { id: string; depth: number; workflowId: string };
  /** 1 for the first attempt of the node, 2 for its first retry, ... */
  attempt: number;
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
  /** Opens the sealed header values of http nodes (domain/sealed-headers.ts). */
  box: SecretBox;
  /** Runs child workflows (workflow and foreach nodes). */
  children?: ChildRunner;
}

/** Nodes without side effects or waits: re-running them after a crash is harmless and cheap. */
export function isPure(node: WorkflowNode): boolean {
  return node.type === 'webhook' || node.type === 'schedule' || node.type === 'transform' || node.type === 'condition';
}

/** Nodes whose run is mostly a wait for child executions (which need execution slots themselves). */
export function waitsForChildren(node: WorkflowNode): boolean {
  return node.type === 'workflow' || node.type === 'foreach';
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
 * Over budget is a failure even for a condition (docs/design.md section 7), and never retried.
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
      {
        tenantId: input.tenantId,
        agentId: String(config.agent_id),
        message,
        sessionId: sessionId || undefined,
        // The agent's workflow tools start their runs one level below this execution.
        depth: input.execution.depth,
      },
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

/** The http node with its header values opened, for this attempt only; unreadable ones fail the node. */
function withOpenedHeaders(input: NodeRunInput, box: SecretBox): NodeRunInput {
  try {
    const owner = { tenantId: input.tenantId, workflowId: input.execution.workflowId };
    return { ...input, node: openHeaders(box, owner, input.node) };
  } catch (error) {
    if (error instanceof UnreadableHeaderError) throw new NodeError(error.message, false);
    throw error;
  }
}

async function runHttp(input: NodeRunInput, deps: NodeRunnerDeps): Promise<JsonObject> {
  const config = input.node.config;
  const rendered = await compute(withOpenedHeaders(input, deps.box), deps);
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

function childRunnerOf(input: NodeRunInput, deps: NodeRunnerDeps): { runner: ChildRunner; depth: number } {
  if (!deps.children) throw new NodeError(`${input.node.type} nodes cannot run here`, false);
  const depth = input.execution.depth + 1;
  if (depth > LIMITS.maxNestingDepth) {
    throw new NodeError(
      `nesting deeper than ${LIMITS.maxNestingDepth} levels: this execution already runs at depth ${input.execution.depth}`,
      false,
    );
  }
  return { runner: deps.children, depth };
}

function childRequest(input: NodeRunInput, depth: number, index: number, childInput: JsonObject): ChildRequest {
  return {
    tenantId: input.tenantId,
    parentExecutionId: input.execution.id,
    parentNodeId: input.node.id,
    depth,
    attempt: input.attempt,
    index,
    workflowId: String(input.node.config.workflow_id),
    input: childInput,
    signal: input.signal,
    resumed: input.resumedFrom !== undefined,
  };
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A workflow node: the child's output is the node's output. */
async function runWorkflow(input: NodeRunInput, deps: NodeRunnerDeps): Promise<JsonObject> {
  const { runner, depth } = childRunnerOf(input, deps);
  const rendered = (await compute(input, deps)).input;
  if (!isObject(rendered)) throw new NodeError('the input must be an object (it rendered to something else)', false);
  const child = await runner.run(childRequest(input, depth, 0, rendered));
  if (child.status !== 'completed') {
    throw new NodeError(
      `workflow '${String(input.node.config.workflow_id)}' (execution ${child.executionId}) ${child.status}: ${child.error ?? 'no error given'}`,
      true,
      { execution_id: child.executionId, status: child.status, error: child.error ?? null },
    );
  }
  return child.output ?? {};
}

/**
 * A foreach node: the child once per item with `{item, index}`, at most `concurrency` at a time;
 * the outputs in item order. Every item runs even when some fail; the failed ones are named.
 */
async function runForeach(input: NodeRunInput, deps: NodeRunnerDeps): Promise<JsonObject> {
  const { runner, depth } = childRunnerOf(input, deps);
  const items = (await compute(input, deps)).items;
  if (!Array.isArray(items)) throw new NodeError(`items must evaluate to a list (got ${typeof items})`, false);
  if (items.length > LIMITS.maxForeachItems) {
    throw new NodeError(`items has ${items.length} entries; at most ${LIMITS.maxForeachItems} are allowed`, false);
  }
  const concurrency = Number(input.node.config.concurrency ?? LIMITS.defaultForeachConcurrency);
  const results: JsonValue[] = new Array<JsonValue>(items.length).fill(null);
  const failed: Array<{ index: number; execution_id: string | null; error: string }> = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !input.signal.aborted) {
      const index = next++;
      try {
        const child = await runner.run(childRequest(input, depth, index, { item: items[index]!, index }));
        if (child.status === 'completed') results[index] = child.output ?? {};
        else failed.push({ index, execution_id: child.executionId, error: `${child.status}: ${child.error ?? ''}` });
      } catch (error) {
        if (input.signal.aborted) return;
        failed.push({ index, execution_id: null, error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (input.signal.aborted) throw input.signal.reason;
  if (failed.length > 0) {
    failed.sort((a, b) => a.index - b.index);
    const named = failed.slice(0, 20).map((f) => f.index);
    throw new NodeError(
      `${failed.length} of ${items.length} items failed (indexes ${named.join(', ')}${failed.length > named.length ? ', ...' : ''}): ${failed[0]!.error}`,
      false,
      { results, failed },
    );
  }
  return { results };
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
    case 'workflow':
      return runWorkflow(input, deps);
    case 'foreach':
      return runForeach(input, deps);
    default:
      throw new NodeError(`unknown node type '${input.node.type}'`, false);
  }
}
