import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LRUCache } from 'lru-cache';
import type { Dispatcher } from 'undici';
import { lazy, type Logger } from '@agentplatform/service-kit';
import { MCP_LIMITS, TOOL_NAME, type McpGrant } from '../domain/tools.js';
import { boundedMcpFetch, McpLimitError, tooSlow } from './mcp-fetch.js';
import { ToolError, unavailableTool, type Tool } from './tool.js';

interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** How long a server's tool list is reused before a chat lists it again. */
const LIST_TTL_MS = 30_000;
/**
 * Cached lists' total size in characters of JSON: each list may be up to an MCP message (1 MiB),
 * so a count of lists alone would let a replica's cache grow to a gigabyte.
 */
const LISTS_MAX_CHARS = 32 * 1024 * 1024;
const CLIENT_INFO = { name: 'agentplatform-agent', version: '1.0.0' };

type ClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
type TransportModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
/**
 * The MCP SDK's client, loaded when an agent first uses an `mcp` grant: it and its schemas hold
 * about 17 MB of the process's memory, which an agent-memory whose agents use no MCP server (and
 * every idle one) does not need (docs/performance.md).
 */
const mcpSdk = lazy(() => ({
  Client: (require('@modelcontextprotocol/sdk/client/index.js') as ClientModule).Client,
  Transport: (require('@modelcontextprotocol/sdk/client/streamableHttp.js') as TransportModule)
    .StreamableHTTPClientTransport,
}));

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type RequestOptions = { signal: AbortSignal; timeout: number };

/**
 * Runs `work` (one listing or one call, the connection included) within `ms`: its requests get a
 * signal that ends them with a limit error at the deadline, or when the caller's `signal` ends.
 */
async function within<T>(ms: number, signal: AbortSignal | undefined, work: (options: RequestOptions) => Promise<T>) {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(tooSlow(ms)), ms);
  try {
    // The SDK's own timeout (60 s unless given) is set past the deadline, whose error names the limit.
    const options = {
      signal: signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
      timeout: ms + 1_000,
    };
    return await work(options);
  } finally {
    clearTimeout(timer);
  }
}

/** One server's connection in a turn; `broken` ends its requests when an answer breaks a limit. */
interface Connection {
  client: Promise<Client>;
  broken: AbortController;
}

/** What a chat turn calls on MCP servers: one connection scope per turn. */
export interface McpPort {
  turn(): McpTurnPort;
}

/** One turn's MCP connections: the tools of a grant's server, and the end of the turn. */
export interface McpTurnPort {
  tools(cacheKey: string, grant: McpGrant, headers: Record<string, string>, timeoutMs: number): Promise<Tool[]>;
  close(): Promise<void>;
}

/**
 * The tools of remote MCP servers (Streamable HTTP, the SDK's client), for agents' `mcp` grants.
 * Every connection goes through the SSRF-guarded dispatcher. Tool lists are cached briefly per
 * agent and grant; a turn opens at most one connection per server, closed when the turn ends.
 */
export class McpTools implements McpPort {
  private readonly lists: LRUCache<string, ListedTool[]>;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    ttlMs = LIST_TTL_MS,
  ) {
    this.lists = new LRUCache({
      max: 1_000,
      ttl: ttlMs,
      maxSize: LISTS_MAX_CHARS,
      sizeCalculation: (tools) => Math.max(1, JSON.stringify(tools).length),
    });
  }

  /** A connection scope for one turn: `tools()` per grant, `close()` at the end of the turn. */
  turn(): McpTurnPort {
    return new McpTurn(this.dispatcher, this.lists, this.logger);
  }
}

export class McpTurn implements McpTurnPort {
  private readonly connections = new Map<string, Connection>();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly lists: LRUCache<string, ListedTool[]>,
    private readonly logger: Logger,
  ) {}

  /**
   * The turn's connection to the grant's server, opened on first use. Every exchange goes through
   * the bounded fetch (mcp-fetch.ts); an answer that breaks a limit ends the connection's pending
   * requests with that limit's error, and the connection is dropped (a later call opens another).
   */
  private connect(
    grant: McpGrant,
    headers: Record<string, string>,
    boundMs: number,
    options: RequestOptions,
  ): Connection {
    const existing = this.connections.get(grant.name);
    if (existing) return existing;
    const broken = new AbortController();
    const { Client, Transport } = mcpSdk();
    const transport = new Transport(new URL(grant.server_url), {
      requestInit: { headers },
      fetch: boundedMcpFetch(
        this.dispatcher,
        { messageBytes: MCP_LIMITS.messageBytes, exchangeMs: boundMs },
        (error) => {
          broken.abort(error);
          this.drop(grant.name, opened);
        },
      ),
    });
    const client = new Client(CLIENT_INFO);
    const ready = client
      .connect(transport, { ...options, signal: AbortSignal.any([options.signal, broken.signal]) })
      .then(() => client);
    const opened: Connection = { client: ready, broken };
    // A failed connection is not kept: the next call of the turn tries again.
    ready.catch(() => this.drop(grant.name, opened));
    this.connections.set(grant.name, opened);
    return opened;
  }

  private drop(name: string, connection: Connection): void {
    if (this.connections.get(name) !== connection) return;
    this.connections.delete(name);
    void connection.client.then((c) => c.close()).catch(() => undefined);
  }

  /** `work` on the grant's connection, within the MCP call bound (or the agent's shorter tool timeout). */
  private run<T>(
    grant: McpGrant,
    headers: Record<string, string>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    work: (client: Client, options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const boundMs = Math.min(timeoutMs, MCP_LIMITS.callMs);
    return within(boundMs, signal, async (options) => {
      const { client, broken } = this.connect(grant, headers, boundMs, options);
      const bounded = { ...options, signal: AbortSignal.any([options.signal, broken.signal]) };
      return work(await client, bounded);
    });
  }

  /** The server's tools, page by page; more than MCP_LIMITS.tools is refused, not cut. */
  private list(grant: McpGrant, headers: Record<string, string>, timeoutMs: number): Promise<ListedTool[]> {
    return this.run(grant, headers, timeoutMs, undefined, async (client, options) => {
      const listed: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
        if (listed.length + page.tools.length > MCP_LIMITS.tools) {
          throw new McpLimitError(`it lists more than ${MCP_LIMITS.tools} tools, the limit of an MCP server`);
        }
        for (const t of page.tools) {
          listed.push({
            name: t.name,
            description: t.description ?? '',
            inputSchema: t.inputSchema as Record<string, unknown>,
          });
        }
        // An empty page ends the list even with a cursor: a server cannot keep a chat paging.
        cursor = page.tools.length > 0 ? page.nextCursor : undefined;
      } while (cursor !== undefined);
      return listed;
    });
  }

  /**
   * The grant's tools, named `<grant name>__<tool>` and filtered by `allowed_tools`. A server that
   * cannot be listed (unreachable, or an answer that broke a limit) gives one tool named after the
   * grant whose description and every call say why, so the model and the caller see it.
   */
  async tools(cacheKey: string, grant: McpGrant, headers: Record<string, string>, timeoutMs: number): Promise<Tool[]> {
    let listed = this.lists.get(cacheKey);
    if (!listed) {
      try {
        listed = await this.list(grant, headers, timeoutMs);
        this.lists.set(cacheKey, listed);
      } catch (error) {
        this.logger.warn({ server: grant.name, reason: message(error) }, 'mcp server tools could not be listed');
        return [
          unavailableTool(
            grant.name,
            `The tools of the MCP server ${grant.name}`,
            `MCP server ${grant.name}: its tools could not be listed: ${message(error)}`,
          ),
        ];
      }
    }
    const allowed = grant.allowed_tools ? new Set(grant.allowed_tools) : undefined;
    return listed
      .filter((t) => !allowed || allowed.has(t.name))
      .filter((t) => TOOL_NAME.test(`${grant.name}__${t.name}`))
      .map((t) => ({
        name: `${grant.name}__${t.name}`,
        description: t.description || `${t.name} on the MCP server ${grant.name}`,
        parameters: t.inputSchema,
        run: async (args, signal) => {
          let result;
          try {
            result = await this.run(grant, headers, timeoutMs, signal, (client, options) =>
              client.callTool({ name: t.name, arguments: args }, undefined, options),
            );
          } catch (error) {
            throw new ToolError(`MCP server ${grant.name}: ${message(error)}`);
          }
          const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
          if (result.isError) {
            const text = content
              .map((c) => c.text ?? '')
              .join('\n')
              .trim();
            throw new ToolError(text || `MCP tool ${t.name} failed`);
          }
          return result.structuredContent ?? { content };
        },
      }));
  }

  async close(): Promise<void> {
    const connections = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(connections.map((c) => c.client.then((client) => client.close()).catch(() => undefined)));
  }
}
