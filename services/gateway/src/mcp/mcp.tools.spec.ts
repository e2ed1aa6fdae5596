import type { RouteDeps } from '../routes/deps';
import { apiRoutes } from '../routes/index';
import { bindTools, mcpTools, type McpToolDeps } from './mcp.tools';

// Route definitions and tools read their dependencies only when they run.
const deps = { backends: {}, config: {}, logger: undefined } as unknown as RouteDeps & McpToolDeps;

describe('the MCP tools', () => {
  it('take the access rule and idempotency of the REST route each stands for', () => {
    const tools = bindTools(mcpTools(deps), apiRoutes(deps));
    const summary = Object.fromEntries(
      tools.map((t) => [
        t.name,
        { access: t.access.kind === 'scope' ? t.access.scope : t.access.kind, idempotent: t.idempotent },
      ]),
    );
    // The table of docs/mcp.md.
    expect(summary).toEqual({
      list_agents: { access: 'agents:read', idempotent: false },
      chat_with_agent: { access: 'agents:write', idempotent: false },
      search_memory: { access: 'memory:read', idempotent: false },
      add_memory: { access: 'memory:write', idempotent: true },
      list_workflows: { access: 'workflows:read', idempotent: false },
      run_workflow: { access: 'workflows:execute', idempotent: true },
      get_execution: { access: 'workflows:read', idempotent: false },
    });
  });

  it('refuses to start with a tool whose route does not exist', () => {
    const routes = apiRoutes(deps).filter((r) => r.path !== '/memory/search');
    expect(() => bindTools(mcpTools(deps), routes)).toThrow('MCP tool search_memory: no route POST /memory/search');
  });
});
