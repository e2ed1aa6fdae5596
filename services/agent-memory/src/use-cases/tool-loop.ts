import { DomainError, SpanKind, traced, type Logger } from '@agentplatform/service-kit';
import type { StopReason, ToolStep, Usage } from '../domain/chat.js';
import type { LlmMessage, LlmProvider, LlmRequest, LlmResult, LlmToolCall } from '../llm/llm-provider.js';
import { TOOL_LIMITS } from '../domain/tools.js';
import { ToolError, type Tool } from '../tools/tool.js';

/** The longest tool result given back to the model (and stored), in characters of JSON. */
export const MAX_TOOL_RESULT_CHARS = 16_000;

export interface LoopOptions {
  /** Model rounds that may call tools; a further round without tools answers if they all did. */
  maxSteps: number;
  toolTimeoutMs: number;
  logger: Logger;
  onDelta?: (text: string) => void;
  /** A tool call finished (its step and the tool message the model gets). */
  onStep?: (step: ToolStep, message: Extract<LlmMessage, { role: 'tool' }>) => void | Promise<void>;
  /**
   * Before each model round, with the messages it will get: false ends the turn with what it has
   * (`insufficient_credits`). How a chat pays as it goes (docs/design.md section 5).
   */
  beforeRound?: (messages: readonly LlmMessage[]) => Promise<boolean>;
  /** A model round finished with this usage. */
  afterRound?: (usage: Usage) => void;
  /** Ends the turn: the model call and the tool calls in flight are aborted, and the loop throws. */
  signal?: AbortSignal;
}

export interface LoopResult {
  content: string;
  model: string;
  /** Summed over every model call of the turn. */
  usage: Usage;
  steps: ToolStep[];
  stopReason: StopReason;
}

function add(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function clip(json: string): string {
  return json.length <= MAX_TOOL_RESULT_CHARS ? json : `${json.slice(0, MAX_TOOL_RESULT_CHARS)}…(truncated)`;
}

/**
 * Runs one call with its own deadline. Every failure (unknown tool, bad arguments, a throw, a
 * refusal, the timeout) is an error result for the model, never a failure of the turn.
 */
async function runCall(
  call: LlmToolCall,
  tools: Map<string, Tool>,
  options: LoopOptions,
  refusal?: string,
): Promise<{ step: ToolStep; message: Extract<LlmMessage, { role: 'tool' }> }> {
  const started = Date.now();
  const args = parseArguments(call.arguments);
  const tool = tools.get(call.name);
  let output: unknown;
  let error: string | undefined;
  if (refusal) error = refusal;
  else if (!tool) error = `unknown tool "${call.name}"`;
  else if (!args) error = 'the arguments are not a JSON object';
  else {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let stopTurn: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new ToolError(`timed out after ${options.toolTimeoutMs} ms`));
      }, options.toolTimeoutMs);
      // The turn ended (its deadline, its caller gone): the call stops with it.
      stopTurn = () => {
        controller.abort();
        reject(options.signal!.reason);
      };
      options.signal?.addEventListener('abort', stopTurn, { once: true });
    });
    try {
      options.signal?.throwIfAborted();
      output = await Promise.race([tool.run(args, controller.signal), timeout]);
      if (output === undefined) output = null;
    } catch (thrown) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (thrown instanceof ToolError || (thrown instanceof DomainError && thrown.code !== 'internal_error')) {
        error = thrown.message;
      } else {
        options.logger.warn({ err: thrown, tool: call.name }, 'tool call failed');
        error = 'the tool failed';
      }
    } finally {
      clearTimeout(timer);
      if (stopTurn) options.signal?.removeEventListener('abort', stopTurn);
    }
  }
  const step: ToolStep = {
    type: 'tool_call',
    tool: call.name,
    arguments: args ?? { _raw: call.arguments.slice(0, 1_000) },
    ...(error === undefined ? { output } : { error }),
    durationMs: Date.now() - started,
  };
  const content = clip(JSON.stringify(error === undefined ? output : { error }));
  return { step, message: { role: 'tool', toolCallId: call.id, name: call.name, content } };
}

/**
 * The model-and-tools loop of a chat turn (docs/design.md section 9): the model gets the tools; the
 * calls it makes run in parallel and their results go back to it; this repeats until it answers
 * or `maxSteps` rounds have run, and then one last round without tools must answer. Each round
 * runs only once `beforeRound` let it (section 5); a refused round ends the turn with the text the
 * model gave last.
 */
export async function runToolLoop(
  llm: LlmProvider,
  request: LlmRequest,
  tools: Tool[],
  options: LoopOptions,
): Promise<LoopResult> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const offered = tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const messages = [...request.messages];
  const steps: ToolStep[] = [];
  let usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let last: LlmResult | undefined;
  for (let round = 0; ; round++) {
    options.signal?.throwIfAborted();
    if (options.beforeRound && !(await options.beforeRound(messages))) {
      return {
        content: last?.content ?? '',
        model: last?.model ?? llm.modelFor(request.model),
        usage,
        steps,
        stopReason: 'insufficient_credits',
      };
    }
    const withTools = offered.length > 0 && round < options.maxSteps;
    // The last round still describes the tools (the history holds calls of them) but may not call one.
    const model = llm.modelFor(request.model);
    const result: LlmResult = await traced(
      `llm ${model}`,
      { kind: SpanKind.CLIENT, attributes: { 'gen_ai.request.model': model, 'gen_ai.operation.name': 'chat' } },
      async (span) => {
        const completed = await llm.complete(
          {
            ...request,
            messages: [...messages],
            signal: options.signal,
            tools: offered.length > 0 ? offered : undefined,
            toolChoice: offered.length > 0 && !withTools ? 'none' : undefined,
          },
          options.onDelta,
        );
        span?.setAttributes({
          'gen_ai.usage.input_tokens': completed.usage.promptTokens,
          'gen_ai.usage.output_tokens': completed.usage.completionTokens,
        });
        return completed;
      },
    );
    usage = add(usage, result.usage);
    options.afterRound?.(result.usage);
    last = result;
    if (!withTools || !result.toolCalls?.length) {
      const stopReason = result.truncated ? 'max_tokens' : 'stop';
      return { content: result.content, model: result.model, usage, steps, stopReason };
    }
    messages.push({ role: 'assistant', content: result.content, toolCalls: result.toolCalls });
    // A round's calls run at once, so one answer of the model must not start an unbounded number.
    const done = await Promise.all(
      result.toolCalls.map(async (call, i) => {
        const outcome = await runCall(
          call,
          byName,
          options,
          i < TOOL_LIMITS.callsPerRound
            ? undefined
            : `not run: at most ${TOOL_LIMITS.callsPerRound} tool calls per model round; call it again in the next round`,
        );
        await options.onStep?.(outcome.step, outcome.message);
        return outcome;
      }),
    );
    for (const { step, message } of done) {
      steps.push(step);
      messages.push(message);
    }
  }
}
