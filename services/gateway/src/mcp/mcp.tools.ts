import { z } from 'zod';
import type { Logger, Metrics } from '@agentplatform/service-kit';
import type { Backends } from '../clients/backends.js';
import type { GatewayConfig } from '../config.js';
import type { Caller, HttpMethod, RouteAccess, Route } from '../http/route.js';
import { parseOrThrow } from '../http/validation.js';
import { chatOnce, listAgents } from '../routes/agents/index.js';
import { agentParams, chatBody, listAgentsQuery } from '../routes/agents/agents.schemas.js';
import { addMemory, searchMemory } from '../routes/memory/index.js';
import { addMemoryBody, searchMemoryBody } from '../routes/memory/memory.schemas.js';
import { executeWorkflow, getExecution, listWorkflows } from '../routes/workflows/index.js';
import {
  executeBody,
  executionParams,
  listWorkflowsQuery,
  workflowParams,
} from '../routes/workflows/workflows.schemas.js';

export interface McpToolDeps {
  backends: Backends;
  config: Pick<GatewayConfig, 'GRPC_DEADLINE_MS'>;
  logger: Logger;
  metrics?: Metrics;
}

/**
 * One tool of the platform's MCP server. Each stands for a REST route: it takes that route's
 * access rule (so the scope is the same by construction), validates its arguments with that
 * route's schemas and runs the same function as its handler.
 */
interface McpToolDefinition<S extends z.ZodObject> {
  name: string;
  description: string;
  /** The REST route whose access rule applies, as `[method, path]`. */
  route: readonly [HttpMethod, string];
  input: S;
  run(caller: Caller, args: z.infer<S>): Promise<unknown>;
}

/** A tool call whose arguments passed the tool's schema, ready to run as a caller. */
interface McpToolCall {
  /** The parsed arguments (what an Idempotency-Key's fingerprint is taken of). */
  input: unknown;
  run(caller: Caller): Promise<unknown>;
}

/** A tool as the MCP server lists and calls it, whatever its arguments' schema. */
interface McpTool extends Omit<McpToolDefinition<z.ZodObject>, 'run'> {
  /** Validates the arguments (a validation error names the bad ones) and binds them to the tool's function. */
  parse(args: unknown): McpToolCall;
}

/** A tool with its route's access rule, and whether the route takes an Idempotency-Key. */
export interface BoundMcpTool extends McpTool {
  access: RouteAccess;
  idempotent: boolean;
}

function tool<S extends z.ZodObject>({ run, ...definition }: McpToolDefinition<S>): McpTool {
  return {
    ...definition,
    parse: (args) => {
      const input = parseOrThrow(definition.input, args);
      return { input, run: (caller) => run(caller, input) };
    },
  };
}

const searchInput = searchMemoryBody.pick({ agent_id: true, query: true }).extend({
  limit: searchMemoryBody.shape.top_k.describe('How many items at most (default 10)'),
});

const runInput = workflowParams.extend({ input: executeBody.shape.input.describe('The execution input') });

/** The tools of docs/design.md section 9, in the order a client lists them. */
export function mcpTools({ backends, config }: McpToolDeps): McpTool[] {
  return [
    tool({
      name: 'list_agents',
      description: "List the tenant's agents, newest first (paged: page, per_page; optional type and status filters).",
      route: ['get', '/agents'],
      input: listAgentsQuery,
      run: (caller, args) => listAgents(backends, caller, args),
    }),
    tool({
      name: 'chat_with_agent',
      description:
        'Send a message to an agent and get its reply. Pass the session_id of an earlier reply to continue ' +
        'that conversation; without one a new session starts. Costs credits as a REST chat does.',
      route: ['post', '/agents/:agent_id/chat'],
      input: agentParams.extend(chatBody.shape),
      run: (caller, { agent_id, ...body }) => chatOnce(backends.agentMemory, caller, agent_id, body),
    }),
    tool({
      name: 'search_memory',
      description: "Search an agent's memory (lexical and semantic, fused); the best matches first.",
      route: ['post', '/memory/search'],
      input: searchInput,
      run: (caller, { limit, ...rest }) => searchMemory(backends.agentMemory, caller, { ...rest, top_k: limit }),
    }),
    tool({
      name: 'add_memory',
      description: "Store a memory item in an agent's memory (memory_type semantic by default).",
      route: ['post', '/memory'],
      input: addMemoryBody,
      run: (caller, args) => addMemory(backends, caller, args),
    }),
    tool({
      name: 'list_workflows',
      description: "List the tenant's workflows, newest first (paged: page, per_page; optional status filter).",
      route: ['get', '/workflows'],
      input: listWorkflowsQuery,
      run: (caller, args) => listWorkflows(backends.workflow, caller, args),
    }),
    tool({
      name: 'run_workflow',
      description:
        'Run an active workflow with the given input and wait (up to 30 s) for the execution; the answer has its ' +
        'status, output and per-node results. Costs 1 credit, as a REST execute does.',
      route: ['post', '/workflows/:workflow_id/execute'],
      input: runInput,
      run: (caller, { workflow_id, input }) =>
        executeWorkflow(backends.workflow, config, caller, workflow_id, { input, async: false }),
    }),
    tool({
      name: 'get_execution',
      description: 'Get one workflow execution (for example one run_workflow answered while still running).',
      route: ['get', '/workflows/:workflow_id/executions/:execution_id'],
      input: executionParams.pick({ execution_id: true }),
      run: (caller, args) => getExecution(backends.workflow, caller, args),
    }),
  ];
}

/** Gives every tool the access rule and idempotency of its REST route; a tool naming no route is a programming error. */
export function bindTools(tools: McpTool[], routes: ReadonlyArray<Route>): BoundMcpTool[] {
  return tools.map((t) => {
    const [method, path] = t.route;
    const route = routes.find((r) => r.method === method && r.path === path);
    if (!route) throw new Error(`MCP tool ${t.name}: no route ${method.toUpperCase()} ${path}`);
    return { ...t, access: route.access, idempotent: route.idempotent === true };
  });
}
