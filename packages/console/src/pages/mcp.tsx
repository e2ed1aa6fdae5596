import { CopyButton } from '../ui';

/** The platform is an MCP server too (DESIGN 9): where it is and how a client connects. */
export function McpPage() {
  const url = `${window.location.origin}/mcp`;
  const snippet = JSON.stringify(
    { mcpServers: { 'agent-platform': { type: 'http', url, headers: { Authorization: 'Bearer <your API key>' } } } },
    null,
    2,
  );
  return (
    <section aria-labelledby="mcp-title">
      <h1 id="mcp-title">MCP</h1>
      <div className="card">
        <p>
          This platform is an MCP server (Streamable HTTP, stateless) at <code>{url}</code>{' '}
          <CopyButton text={url} label="Copy address" />
        </p>
        <p>
          Authenticate with an API key (create one under API keys) as <code>Authorization: Bearer</code>; its scopes
          decide which tools work. Tools: <code>list_agents</code>, <code>chat_with_agent</code>,{' '}
          <code>search_memory</code>, <code>add_memory</code>, <code>list_workflows</code>, <code>run_workflow</code>,{' '}
          <code>get_execution</code>.
        </p>
        <h2>Client configuration</h2>
        <pre className="json" aria-label="MCP client configuration">
          {snippet}
        </pre>
        <CopyButton text={snippet} label="Copy configuration" />
      </div>
    </section>
  );
}
