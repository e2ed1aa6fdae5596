import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LRUCache } from 'lru-cache';
import type { Dispatcher } from 'undici';
import { lazy, undici, type Logger } from '@agentplatform/service-kit';
import { TOOL_NAME, type McpGrant } from '../domain/tools.js';
import { ToolError, type Tool } from './tool.js';

interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** How long a server's tool list is reused before a chat lists it again. */
const LIST_TTL_MS = 30_000;
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

/**
 * The tools of remote MCP servers (Streamable HTTP, the SDK's client), for agents' `mcp` grants.
 * Every connection goes through the SSRF-guarded dispatcher. Tool lists are cached briefly per
 * agent and grant; a turn opens at most one connection per server, closed when the turn ends.
 */
export class McpTools {
  private readonly lists: LRUCache<string, ListedTool[]>;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
    ttlMs = LIST_TTL_MS,
  ) {
    this.lists = new LRUCache({ max: 1_000, ttl: ttlMs });
  }

  /** A connection scope for one turn: `tools()` per grant, `close()` at the end of the turn. */
  turn(): McpTurn {
    return new McpTurn(this.dispatcher, this.lists, this.logger);
  }
}

export class McpTurn {
  private readonly clients = new Map<string, Promise<Client>>();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly lists: LRUCache<string, ListedTool[]>,
    private readonly logger: Logger,
  ) {}

  private connect(grant: McpGrant, headers: Record<string, string>, timeoutMs: number): Promise<Client> {
    let client = this.clients.get(grant.name);
    if (!client) {
      const dispatcher = this.dispatcher;
      const { Client, Transport } = mcpSdk();
      const transport = new Transport(new URL(grant.server_url), {
        requestInit: { headers },
        fetch: ((url: string | URL, init?: RequestInit) =>
          undici().fetch(url, { ...(init as object), dispatcher } as never)) as never,
      });
      const c = new Client(CLIENT_INFO);
      client = c.connect(transport, { timeout: timeoutMs }).then(() => c);
      // A failed connection is not kept: the next call of the turn tries again.
      client.catch(() => this.clients.delete(grant.name));
      this.clients.set(grant.name, client);
    }
    return client;
  }

  /**
   * The grant's tools, named `<grant name>__<tool>` and filtered by `allowed_tools`. A server that
   * cannot be reached contributes no tools (logged); the chat goes on with the others.
   */
  async tools(cacheKey: string, grant: McpGrant, headers: Record<string, string>, timeoutMs: number): Promise<Tool[]> {
    let listed = this.lists.get(cacheKey);
    if (!listed) {
      try {
        const client = await this.connect(grant, headers, timeoutMs);
        const answer = await client.listTools(undefined, { timeout: timeoutMs });
        listed = answer.tools.map((t) => ({
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema as Record<string, unknown>,
        }));
        this.lists.set(cacheKey, listed);
      } catch (error) {
        this.logger.warn({ server: grant.name, reason: message(error) }, 'mcp server tools could not be listed');
        return [];
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
            const client = await this.connect(grant, headers, timeoutMs);
            result = await client.callTool({ name: t.name, arguments: args }, undefined, {
              signal,
              timeout: timeoutMs,
            });
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
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((c) => c.then((client) => client.close()).catch(() => undefined)));
  }
}
