import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import {
  api,
  createApiKey,
  drainCredits,
  newTenant,
  startTenantPlatform,
  suiteFixture,
  type Http,
} from '@agentplatform/testing';

const ROOT = path.resolve(__dirname, '../../..');
/** The official `openai` Python package, from PyPI into an ignored virtual environment, pinned. */
const OPENAI_PYTHON = 'openai==3.57.0';
const VENV = path.join(ROOT, '.cache', 'openai-python-venv');

/** The venv's python, with OPENAI_PYTHON installed (once: a marker names what is installed). */
function openAiPython(): string {
  const python = path.join(VENV, 'bin', 'python');
  const marker = path.join(VENV, 'installed.txt');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === OPENAI_PYTHON) return python;
  fs.rmSync(VENV, { recursive: true, force: true });
  const steps: Array<[string, string[]]> = [
    ['python3', ['-m', 'venv', VENV]],
    [path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', OPENAI_PYTHON]],
  ];
  for (const [command, args] of steps) {
    const result = spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  }
  fs.writeFileSync(marker, `${OPENAI_PYTHON}\n`);
  return python;
}

/**
 * The agents behind OpenAI's Chat Completions API (docs/design.md section 11), driven by clients
 * nobody here wrote: the official `openai` packages (npm and PyPI) and the Vercel AI SDK.
 */
describe('the OpenAI-compatible API', () => {
  const suite = suiteFixture(() =>
    startTenantPlatform({ services: ['identity', 'agent-memory'], env: { DEFAULT_PLAN: 'free' } }, 'openai'),
  );
  const baseURL = () => `${suite.platform.url}/openai/v1`;

  let client: OpenAI;
  let agentId: string;

  async function createAgent(http: Http, body: Record<string, unknown> = {}): Promise<string> {
    const res = await http.post('/api/v1/agents', { name: 'Helper', type: 'assistant', ...body });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  beforeAll(async () => {
    const key = await createApiKey(suite.platform.url, suite.user.accessToken, ['agents:read', 'agents:write']);
    client = new OpenAI({ baseURL: baseURL(), apiKey: key.key, maxRetries: 0 });
    // Semantic memory only: an episodic memory of each turn would change the next turn's answer.
    agentId = await createAgent(suite.http, { memory_types: ['semantic'], config: { max_tokens: 200 } });
    const memory = await suite.http.post('/api/v1/memory', {
      agent_id: agentId,
      content: 'The office wifi password is tangerine-42',
      memory_type: 'semantic',
    });
    expect(memory.status).toBe(201);
  });

  it('lists the tenant’s agents as models and gets one, 404 model_not_found for another', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([
      { id: agentId, object: 'model', created: expect.any(Number), owned_by: suite.tenantId, name: 'Helper' },
    ]);
    expect(await client.models.retrieve(agentId)).toMatchObject({ id: agentId, object: 'model' });
    const missing = await client.models.retrieve('agt_missing').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
  });

  it('answers a completion from a memory the agent was given', async () => {
    const completion = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'What is the office wifi password?' }],
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: agentId,
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
      agent_steps: [],
    });
    expect(completion.choices[0].message.content).toContain('tangerine-42');
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
  });

  it('streams a completion in OpenAI’s chunks, with usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'What is the office wifi password?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toContain('tangerine-42');
    expect(chunks.length).toBeGreaterThan(3);
    const finished = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finished.map((c) => c.choices[0].finish_reason)).toEqual(['stop']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.total_tokens).toBeGreaterThan(0);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('keeps a session across two calls by X-Session-Id, ignoring the earlier request messages', async () => {
    const headers = { 'X-Session-Id': 'openai-e2e-1' };
    await client.chat.completions.create(
      { model: agentId, messages: [{ role: 'user', content: 'My favourite colour is teal' }] },
      { headers },
    );
    const second = await client.chat.completions.create(
      {
        model: agentId,
        messages: [
          { role: 'user', content: 'I like ducks' },
          { role: 'assistant', content: 'Noted.' },
          { role: 'user', content: 'What did I tell you?' },
        ],
      },
      { headers },
    );
    // The local responder answers from the history it was given: the stored session's, not the request's.
    expect(second.choices[0].message.content).toContain('My favourite colour is teal');
    expect(second.choices[0].message.content).not.toContain('ducks');
    const messages = await suite.http.get(`/api/v1/agents/${agentId}/sessions/openai-e2e-1/messages`);
    expect(messages.body.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);

    // Without a session, the request's own messages are the context.
    const contextual = await client.chat.completions.create({
      model: agentId,
      messages: [
        { role: 'user', content: 'I like ducks' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'What did I tell you?' },
      ],
    });
    expect(contextual.choices[0].message.content).toContain('I like ducks');
  });

  it('caps max_tokens at the request’s value', async () => {
    const completion = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'What is the office wifi password?' }],
      max_completion_tokens: 3,
    });
    expect(completion.usage!.completion_tokens).toBe(3);
  });

  it('costs the same credits and fires the same agent.message.completed as the native chat', async () => {
    const balance = async () => (await suite.http.get('/api/v1/billing/credits')).body.balance as number;
    const question = 'What is the office wifi password?';

    const before = await balance();
    const native = await suite.http.post(`/api/v1/agents/${agentId}/chat`, { message: question });
    expect(native.status).toBe(200);
    const afterNative = await balance();
    const completion = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: question }],
    });
    const afterOpenAi = await balance();

    expect(completion.usage).toEqual(native.body.usage);
    expect(before - afterNative).toBe(native.body.credits_used);
    expect(afterNative - afterOpenAi).toBe(native.body.credits_used);

    const nativeEvent = await suite.tap.wait('agent.message.completed', (e) => e.data.message_id === native.body.id);
    const openAiEvent = await suite.tap.wait('agent.message.completed', (e) => e.data.message_id === completion.id);
    const comparable = (data: Record<string, unknown>) => ({
      ...data,
      conversation_id: undefined,
      message_id: undefined,
      latency_ms: undefined,
    });
    expect(comparable(openAiEvent.data)).toEqual(comparable(nativeEvent.data));
    expect(openAiEvent.data).toMatchObject({ agent_id: agentId, content: completion.choices[0].message.content });
  });

  it('refuses what an agent cannot honour with a 400 naming the parameter', async () => {
    const refusal = (body: Record<string, unknown>) =>
      client.chat.completions
        .create({ model: agentId, messages: [{ role: 'user', content: 'hi' }], ...body } as never)
        .catch((e: unknown) => e);
    for (const [param, value] of [
      ['n', 2],
      ['logprobs', true],
      ['tools', [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]],
    ] as const) {
      const error = await refusal({ [param]: value });
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error).toMatchObject({ status: 400, param, code: 'unsupported_parameter', type: 'invalid_request_error' });
    }
    expect(await refusal({ temperature: 3 })).toMatchObject({ status: 400, param: 'temperature' });
    // Values that mean "as if absent" are taken: what clients send by default.
    const taken = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'hi' }],
      n: 1,
      tools: [],
    });
    expect(taken.choices).toHaveLength(1);
  });

  it('answers 401 for a bad key and 402 insufficient_quota for a tenant out of credits', async () => {
    const stranger = new OpenAI({ baseURL: baseURL(), apiKey: 'apk_not_a_key', maxRetries: 0 });
    expect(await stranger.models.list().catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);

    const { user, http } = await newTenant(suite.platform);
    const poorAgent = await createAgent(http);
    await drainCredits(suite.platform, user.tenantId);
    const poor = new OpenAI({ baseURL: baseURL(), apiKey: user.accessToken, maxRetries: 0 });
    const error = await poor.chat.completions
      .create({ model: poorAgent, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 402, code: 'insufficient_quota', type: 'insufficient_quota' });
  });

  it('answers 429 with Retry-After once the tenant’s rate limit is spent', async () => {
    const { user } = await newTenant(suite.platform);
    const http = api(suite.platform.url, user.accessToken);
    // The free plan's 60 requests a minute, spent on the cheapest route.
    for (let sent = 0; sent < 60; sent += 10) {
      await Promise.all(Array.from({ length: 10 }, () => http.get('/openai/v1/models')));
    }
    const limited = new OpenAI({ baseURL: baseURL(), apiKey: user.accessToken, maxRetries: 0 });
    const error = await limited.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(Number((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('is described by the OpenAPI document, under its own base path and error shape', async () => {
    const doc = (await api(suite.platform.url).get('/api/v1/openapi.json')).body;
    for (const path of ['/models', '/models/{model}', '/chat/completions']) {
      expect(doc.paths[path].servers).toEqual([{ url: '/openai/v1', description: expect.any(String) }]);
    }
    const completions = doc.paths['/chat/completions'].post;
    expect(completions.operationId).toBe('openaiPostChatCompletions');
    expect(completions.responses['402'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/OpenAIError',
    });
  });

  it('serves the Vercel AI SDK through @ai-sdk/openai-compatible: generateText and streamText', async () => {
    const provider = createOpenAICompatible({
      name: 'agentplatform',
      baseURL: baseURL(),
      apiKey: suite.user.accessToken,
      includeUsage: true,
    });
    const generated = await generateText({
      model: provider(agentId),
      prompt: 'What is the office wifi password?',
      maxRetries: 0,
    });
    expect(generated.text).toContain('tangerine-42');
    expect(generated.finishReason).toBe('stop');
    expect(generated.usage.totalTokens).toBeGreaterThan(0);

    const streamed = streamText({
      model: provider(agentId),
      prompt: 'What is the office wifi password?',
      maxRetries: 0,
    });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toContain('tangerine-42');
    expect((await streamed.usage).totalTokens).toBeGreaterThan(0);
  });

  it('serves the official openai Python package: one completion and one stream', async () => {
    const python = openAiPython();
    const result = spawnSync(
      python,
      [path.join(__dirname, 'python', 'openai_client.py'), baseURL(), suite.user.accessToken, agentId],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout);
    expect(out.content).toContain('tangerine-42');
    expect(out.finish_reason).toBe('stop');
    expect(out.total_tokens).toBeGreaterThan(0);
    expect(out.streamed).toContain('tangerine-42');
    expect(out.stream_total_tokens).toBeGreaterThan(0);
  }, 300_000);
});
