/** A tool the model may call in a chat (docs/design.md section 9). */
export interface Tool {
  /** The name the model sees; unique in a turn. */
  name: string;
  description: string;
  /** JSON Schema (type object) of the arguments. */
  parameters: Record<string, unknown>;
  /** Runs one call; the result is JSON. A thrown error becomes the step's `error`. */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/** A tool failure whose message the model and the caller may see (it names no secret). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** Everything a tool acts on: the agent and its tenant, never another. */
export interface ToolScope {
  tenantId: string;
  agentId: string;
  /** The chat's depth in a chain of compositions (0 from a user; see ChatInput.depth). */
  depth?: number;
}

/**
 * A tool that cannot work this turn (its credentials do not open, its MCP server broke a limit):
 * the model still sees it, with the reason, and a call of it is an error result saying why.
 */
export function unavailableTool(name: string, description: string, reason: string): Tool {
  return {
    name,
    description: `${description} (unavailable: ${reason})`,
    parameters: { type: 'object', properties: {} },
    run: async () => {
      throw new ToolError(reason);
    },
  };
}
