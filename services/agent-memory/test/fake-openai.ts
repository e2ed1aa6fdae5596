import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPlatform, type Platform, type PlatformOptions } from '@agentplatform/testing';

export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** Usage the fake reports: 2,500 tokens, so a chat costs ceil(2500 / 1000) = 3 credits. */
export const FAKE_USAGE = { prompt_tokens: 1800, completion_tokens: 700, total_tokens: 2500 };
export const EMBEDDING_DIMENSION = 32;

/** A deterministic bag-of-words vector: the same words give the same direction. */
function embed(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSION).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 7;
    for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    vector[h % EMBEDDING_DIMENSION] += 1;
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0)) || 1;
  return vector.map((v) => v / norm);
}

/** One scripted answer: tool calls (OpenAI `tool_calls`), or a content, or chosen from the request. */
export type ScriptedAnswer =
  | { tool_calls: Array<{ name: string; arguments: unknown }>; content?: string }
  | { content: string }
  | ((body: any) => ScriptedAnswer);

/**
 * An OpenAI-compatible server on a free port, speaking the real wire format over real HTTP:
 * `POST /v1/chat/completions` (JSON, or SSE chunks with a final usage chunk when
 * `stream_options.include_usage` is set) and `POST /v1/embeddings`. Its reply names the model it
 * was asked for and repeats the last user message, so tests can see what was sent; after tool
 * results it repeats those. `failures` queues error statuses to answer before succeeding;
 * `script` queues answers (tool calls among them) to give before the default one.
 */
/** agent-memory's environment for talking to a FakeOpenAi (whose `start` gave it a url). */
export function fakeLlmEnv(fake: FakeOpenAi): Record<string, string> {
  return { LLM_BASE_URL: fake.url, LLM_API_KEY: 'sk-test-123', LLM_MODEL: 'fake-default', LLM_TIMEOUT_MS: '10000' };
}

/**
 * A platform whose agent-memory talks to a new FakeOpenAi; `env` adds to agent-memory's
 * environment (`options.serviceEnv` sets the others'). `stop()` stops the platform, then the fake.
 */
export async function startWithFakeLlm(
  options: PlatformOptions,
  env: Record<string, string> = {},
): Promise<{ fake: FakeOpenAi; platform: Platform; stop(): Promise<void> }> {
  const fake = await new FakeOpenAi().start();
  let platform: Platform | undefined;
  const stop = async () => {
    await platform?.stop();
    await fake.stop();
  };
  try {
    const own = options.serviceEnv?.['agent-memory'];
    const serviceEnv = { ...options.serviceEnv, 'agent-memory': { ...own, ...fakeLlmEnv(fake), ...env } };
    platform = await startPlatform({ ...options, serviceEnv });
    return { fake, platform, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export class FakeOpenAi {
  readonly requests: SeenRequest[] = [];
  readonly failures: Array<{ status: number; retryAfter?: string }> = [];
  readonly script: ScriptedAnswer[] = [];
  /** Milliseconds to wait before answering each chat completion, in order (then none). */
  readonly delays: number[] = [];
  /** Chat completions whose caller hung up while the model was still thinking (a `delays` wait). */
  abandoned = 0;
  /** The usage every chat completion reports. */
  usage: typeof FAKE_USAGE = FAKE_USAGE;
  /** While set, chat completions wait for it before they answer (`hold`). */
  private gate?: Promise<void>;
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Makes chat completions wait until the returned function is called. */
  hold(): () => void {
    let open!: () => void;
    this.gate = new Promise((resolve) => (open = resolve));
    return () => {
      this.gate = undefined;
      open();
    };
  }

  chats(): SeenRequest[] {
    return this.requests.filter((r) => r.path === '/v1/chat/completions');
  }

  embeddings(): SeenRequest[] {
    return this.requests.filter((r) => r.path === '/v1/embeddings');
  }

  static replyTo(body: any): string {
    const messages: Array<{ role: string; content: string }> = body.messages;
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const results = messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
    if (results.length > 0) return `[${body.model}] From the tools: ${results.map((m) => m.content).join(' | ')}`;
    return `[${body.model}] You asked: ${messages[lastUser].content}`;
  }

  private answer(body: any): { content: string; toolCalls?: Array<{ id: string; name: string; arguments: string }> } {
    let scripted = this.script.shift();
    while (typeof scripted === 'function') scripted = scripted(body);
    if (!scripted) return { content: FakeOpenAi.replyTo(body) };
    if ('tool_calls' in scripted) {
      return {
        content: scripted.content ?? '',
        toolCalls: scripted.tool_calls.map((c, i) => ({
          id: `call_${this.requests.length}_${i}`,
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
        })),
      };
    }
    return { content: scripted.content };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : undefined;
    this.requests.push({ path: req.url ?? '', headers: req.headers, body });
    if (req.url === '/v1/chat/completions') await this.gate;
    const failure = this.failures.shift();
    if (failure) {
      res.writeHead(failure.status, {
        'content-type': 'application/json',
        ...(failure.retryAfter ? { 'retry-after': failure.retryAfter } : {}),
      });
      res.end(JSON.stringify({ error: { message: `scripted ${failure.status}`, type: 'test' } }));
      return;
    }
    if (req.url === '/v1/embeddings') {
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
      return;
    }
    if (req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const delay = this.delays.shift();
    if (delay) {
      // A slow model; a caller that gives up closes the connection, and the wait ends with it.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        res.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (res.destroyed) {
        this.abandoned++;
        return;
      }
    }
    const { content, toolCalls } = this.answer(body);
    const wireCalls = toolCalls?.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
    const id = `chatcmpl-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: wireCalls ? content || null : content, tool_calls: wireCalls },
              finish_reason: wireCalls ? 'tool_calls' : 'stop',
            },
          ],
          usage: this.usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      send({
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    chunk({ role: 'assistant', content: '' });
    for (const piece of content.match(/\S+\s*/g) ?? []) {
      chunk({ content: piece });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Tool calls stream as OpenAI sends them: the name first, the arguments in pieces.
    wireCalls?.forEach((call, index) => {
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      });
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      for (const part of [args.slice(0, half), args.slice(half)]) {
        if (part) chunk({ tool_calls: [{ index, function: { arguments: part } }] });
      }
    });
    chunk({}, wireCalls ? 'tool_calls' : 'stop');
    if (body.stream_options?.include_usage) {
      send({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: this.usage });
    }
    res.end('data: [DONE]\n\n');
  }
}
