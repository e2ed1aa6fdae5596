import { randomUUID } from 'node:crypto';
import {
  OtlpReceiver,
  Receiver,
  api,
  newTenant,
  startPlatform,
  waitFor,
  type Http,
  type Platform,
  type ReceivedSpan,
  type RegisteredUser,
} from '@agentplatform/testing';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/**
 * OpenTelemetry tracing across the real processes: every service exports to an OTLP/HTTP receiver
 * this suite runs (the JSON the SDK's exporter sends), and the spans of one request must form one
 * trace, gateway to gRPC services to Kafka to the webhook delivery the receiver sees, and a
 * workflow's execution to the integration request it makes.
 */
describe('tracing across the services', () => {
  let otlp: OtlpReceiver;
  let receiver: Receiver;
  let platform: Platform;
  let http: Http;
  let user: RegisteredUser;

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    receiver = await Receiver.start();
    platform = await startPlatform({
      services: ['identity', 'agent-memory', 'workflow', 'webhook'],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    });
    ({ http, user } = await newTenant(platform));
  });

  afterAll(async () => {
    await platform?.stop();
    await receiver?.close();
    await otlp?.stop();
  });

  /**
   * The trace of the request sent with this X-Request-Id, once it holds spans of `services` and
   * every span's parent is in it (spans arrive in batches, process by process).
   */
  async function traceOf(
    requestId: string,
    services: string[],
  ): Promise<{ root: ReceivedSpan; spans: ReceivedSpan[] }> {
    const root = await otlp.waitForSpan(
      (s) => s.service === 'gateway' && s.attributes['agentplatform.request.id'] === requestId,
      `the gateway span of ${requestId}`,
    );
    return waitFor(
      () => {
        const spans = otlp.trace(root.traceId);
        const ids = new Set(spans.map((s) => s.spanId));
        const present = new Set(spans.map((s) => s.service));
        const whole = spans.every((s) => s === root || (s.parentSpanId !== undefined && ids.has(s.parentSpanId)));
        return services.every((name) => present.has(name)) && whole ? { root, spans } : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `a whole trace of ${requestId} across ${services.join(', ')}` },
    );
  }

  const byId = (spans: ReceivedSpan[], id: string | undefined) => spans.find((s) => s.spanId === id);

  it('gives one chat request one trace through the gateway, agent-memory and identity', async () => {
    const agent = await http.post('/api/v1/agents', { name: 'Traced bot', type: 'support' });
    expect(agent.status).toBe(201);
    const requestId = `chat-${randomUUID()}`;
    const chat = await http.post(
      `/api/v1/agents/${agent.body.id}/chat`,
      { message: 'How long do refunds take?' },
      { headers: { 'x-request-id': requestId } },
    );
    expect(chat.status).toBe(200);
    expect(chat.headers.get('x-request-id')).toBe(requestId);

    const { root, spans } = await traceOf(requestId, ['gateway', 'agent-memory', 'identity']);
    expect(root).toMatchObject({
      name: 'POST /api/v1/agents/:agent_id/chat',
      kind: SERVER,
      parentSpanId: undefined,
      attributes: expect.objectContaining({
        'http.route': '/api/v1/agents/:agent_id/chat',
        'http.response.status_code': 200,
      }),
    });
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));

    // The chat call: a gateway client span, and agent-memory's server span under it.
    const chatServer = spans.find((s) => s.service === 'agent-memory' && s.kind === SERVER && /Chat/.test(s.name));
    expect(chatServer).toBeDefined();
    const chatClient = byId(spans, chatServer!.parentSpanId);
    expect(chatClient).toMatchObject({ service: 'gateway', kind: CLIENT, name: chatServer!.name });

    // Inside it, the memory search and the model call, and identity answering agent-memory's credit calls.
    const inChat = (s: ReceivedSpan) => {
      for (let at: ReceivedSpan | undefined = s; at; at = byId(spans, at.parentSpanId))
        if (at === chatServer) return true;
      return false;
    };
    expect(spans.filter((s) => s.service === 'agent-memory' && inChat(s)).map((s) => s.name)).toEqual(
      expect.arrayContaining(['memory search', expect.stringMatching(/^llm /)]),
    );
    const identityServer = spans.filter((s) => s.service === 'identity' && s.kind === SERVER);
    expect(identityServer.length).toBeGreaterThan(0);
    for (const span of identityServer) {
      expect(byId(spans, span.parentSpanId)).toMatchObject({ kind: CLIENT, name: span.name });
    }
    expect(identityServer.some((s) => byId(spans, s.parentSpanId)!.service === 'agent-memory' && inChat(s))).toBe(true);
    expect(spans.filter((s) => s.status.code === 2)).toEqual([]);
  });

  it('keeps a request the gateway does not sample out of every service', async () => {
    // A gateway replica that samples half its requests: a dropped request's span records nothing
    // and is never ended, but its decision must still travel with the calls it makes, or the
    // gateway's gRPC client and agent-memory would decide again and record parts of it.
    const gateway = platform.service('gateway');
    const replica = gateway.replica(`${gateway.logFile}.sampled-half`, {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
    });
    const ready = await replica.start();
    try {
      const agent = await http.post('/api/v1/agents', { name: 'Half-traced bot', type: 'support' });
      expect(agent.status).toBe(201);
      const halfTraced = api(`http://127.0.0.1:${ready.http_port}`, user.accessToken);
      const first = otlp.spans.length;
      for (let i = 0; i < 16; i++) {
        const chat = await halfTraced.post(`/api/v1/agents/${agent.body.id}/chat`, { message: `Anyone there? ${i}` });
        expect(chat.status).toBe(200);
      }
      // The replica flushes its spans as it stops; a chat through the main gateway after that:
      // once its whole trace is in, the other processes have exported what they ended before
      // (each exports its spans in the order they ended).
      await replica.stop();
      const requestId = `chat-${randomUUID()}`;
      await http.post(
        `/api/v1/agents/${agent.body.id}/chat`,
        { message: 'And now?' },
        { headers: { 'x-request-id': requestId } },
      );
      const { root } = await traceOf(requestId, ['gateway', 'agent-memory', 'identity']);
      const spans = otlp.spans.slice(first).filter((s) => s.traceId !== root.traceId);
      const roots = spans.filter((s) => s.service === 'gateway' && s.kind === SERVER && !s.parentSpanId);
      const chatRoots = roots.filter((s) => s.name === 'POST /api/v1/agents/:agent_id/chat');
      const chats = spans.filter((s) => s.service === 'agent-memory' && s.kind === SERVER && /Chat/.test(s.name));
      // About half were sampled (all 16 alike once in 32,768): each whole, the others nowhere.
      expect(chatRoots.length).toBeGreaterThan(0);
      expect(chatRoots.length).toBeLessThan(16);
      expect(chats.length).toBe(chatRoots.length);
      const rooted = new Set(roots.map((s) => s.traceId));
      expect(spans.filter((s) => !rooted.has(s.traceId))).toEqual([]);
    } finally {
      await replica.stop();
    }
  });

  it('puts a webhook delivery under the trace of the request that caused it, and sends its traceparent', async () => {
    const webhook = await http.post('/api/v1/webhooks', { url: receiver.url('/traced'), events: ['agent.created'] });
    expect(webhook.status).toBe(201);
    const requestId = `agent-${randomUUID()}`;
    const agent = await http.post(
      '/api/v1/agents',
      { name: 'Traced agent', type: 'support' },
      { headers: { 'x-request-id': requestId } },
    );
    expect(agent.status).toBe(201);

    const delivered = await waitFor(() => receiver.to('/traced').find((r) => r.body.includes(agent.body.id)), {
      what: 'the agent.created delivery',
    });
    const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(delivered.headers.traceparent ?? '');
    expect(traceparent).not.toBeNull();
    const [, traceId, parentId] = traceparent!;

    const { root, spans } = await traceOf(requestId, ['gateway', 'agent-memory', 'webhook']);
    expect(root.name).toBe('POST /api/v1/agents');
    expect(traceId).toBe(root.traceId);

    // The span the receiver's request came from is the delivery attempt, in that same trace,
    // reached from the request through the outbox, Kafka and the consumer.
    const delivery = byId(spans, parentId);
    expect(delivery).toMatchObject({
      service: 'webhook',
      name: 'webhook delivery',
      kind: CLIENT,
      attributes: expect.objectContaining({
        'agentplatform.event.type': 'agent.created',
        'agentplatform.webhook.id': webhook.body.id,
        'http.response.status_code': 200,
      }),
    });
    const consume = byId(spans, delivery!.parentSpanId);
    expect(consume).toMatchObject({ service: 'webhook', kind: CONSUMER, name: 'consume agent.created' });
    const publish = byId(spans, consume!.parentSpanId);
    expect(publish).toMatchObject({ service: 'agent-memory', kind: PRODUCER, name: 'publish agent.created' });
    const server = byId(spans, publish!.parentSpanId);
    expect(server).toMatchObject({ service: 'agent-memory', kind: SERVER });
    expect(byId(spans, server!.parentSpanId)).toMatchObject({ service: 'gateway', kind: CLIENT });
  });

  it('traces a workflow execution node by node, and its integration request carries the node span', async () => {
    const workflow = await http.post('/api/v1/workflows', {
      name: 'Traced integration',
      nodes: [
        { id: 'shape', type: 'transform', config: { fields: { order: 'input.order' } } },
        { id: 'call', type: 'integration', config: { service: 'http', method: 'GET', url: receiver.url('/wf') } },
      ],
      edges: [{ source: 'shape', target: 'call' }],
    });
    expect(workflow.status).toBe(201);
    const requestId = `workflow-${randomUUID()}`;
    const run = await http.post(
      `/api/v1/workflows/${workflow.body.id}/execute`,
      { input: { order: 'ord_1' } },
      { headers: { 'x-request-id': requestId } },
    );
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('completed');

    const [request] = receiver.to('/wf');
    const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(request?.headers.traceparent ?? '');
    expect(traceparent).not.toBeNull();
    const { root, spans } = await traceOf(requestId, ['gateway', 'workflow']);
    expect(root.name).toBe('POST /api/v1/workflows/:workflow_id/execute');
    expect(traceparent![1]).toBe(root.traceId);

    const node = byId(spans, traceparent![2]);
    expect(node).toMatchObject({
      service: 'workflow',
      name: 'workflow node integration',
      attributes: expect.objectContaining({ 'agentplatform.node.id': 'call', 'agentplatform.node.attempts': 1 }),
    });
    const execution = byId(spans, node!.parentSpanId);
    expect(execution).toMatchObject({
      service: 'workflow',
      name: 'workflow execution',
      attributes: expect.objectContaining({ 'agentplatform.workflow.id': workflow.body.id }),
    });
    expect(spans.filter((s) => s.parentSpanId === execution!.spanId).map((s) => s.name)).toEqual(
      expect.arrayContaining(['workflow node transform', 'workflow node integration']),
    );
    expect(byId(spans, execution!.parentSpanId)).toMatchObject({ service: 'workflow', kind: SERVER });
  });
});
