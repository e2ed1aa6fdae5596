import { startPlatform, type Platform } from '@agentplatform/testing';
import { newTenant, parseSse, type Http } from './support';

/**
 * The offline responder (no LLM provider) with the memory_search grant (docs/design.md section 9): it
 * calls the tool as a real step, visible in the answer, the stream and the session.
 */
describe('offline responder with the memory_search tool', () => {
  let platform: Platform;
  let http: Http;

  beforeAll(async () => {
    platform = await startPlatform({
      services: ['identity', 'agent-memory', 'workflow'],
      serviceEnv: { 'agent-memory': { EMBEDDINGS_MODEL_DIR: 'none' } },
    });
    http = (await newTenant(platform)).http;
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('searches memory as a step and answers from what the step found', async () => {
    const created = await http.post('/api/v1/agents', {
      name: 'Librarian',
      type: 'assistant',
      memory_types: ['semantic'],
      config: { tools: [{ type: 'memory_search' }] },
    });
    expect(created.status).toBe(201);
    const agentId = created.body.id;
    await http.post('/api/v1/memory', { agent_id: agentId, content: 'The library opens at nine on Saturdays.' });

    const res = await http.post(`/api/v1/agents/${agentId}/chat`, {
      message: 'When does the library open on Saturdays?',
    });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('local');
    expect(res.body.steps).toHaveLength(1);
    expect(res.body.steps[0]).toMatchObject({
      type: 'tool_call',
      tool: 'memory_search',
      arguments: { query: 'When does the library open on Saturdays?' },
    });
    expect(res.body.steps[0].output.results[0].content).toBe('The library opens at nine on Saturdays.');
    expect(res.body.content).toContain('The library opens at nine on Saturdays.');

    const messages = await http.get(`/api/v1/agents/${agentId}/sessions/${res.body.session_id}/messages`);
    expect(messages.body.messages.map((m: any) => m.role)).toEqual(['user', 'tool', 'assistant']);

    const streamed = await http.post(
      `/api/v1/agents/${agentId}/chat`,
      { message: 'Saturday opening time?' },
      { headers: { accept: 'text/event-stream' } },
    );
    const events = parseSse(streamed.text);
    expect(events.filter((e) => e.event === 'step').map((e) => e.data.tool)).toEqual(['memory_search']);
    expect(events.at(-1)!.data.steps).toHaveLength(1);
  });

  it('answers without a step when the agent has no tools', async () => {
    const created = await http.post('/api/v1/agents', { name: 'Plain', type: 'assistant', memory_types: ['semantic'] });
    const res = await http.post(`/api/v1/agents/${created.body.id}/chat`, { message: 'Hello' });
    expect(res.status).toBe(200);
    expect(res.body.steps).toEqual([]);
  });
});
