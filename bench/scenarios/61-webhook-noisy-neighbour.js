// @ts-check
'use strict';
/**
 * Noisy neighbour (issue 13, fair delivery): a quiet tenant's event -> delivered latency on its
 * own, then while a noisy tenant's 20 webhooks point at two endpoints that never answer (each
 * attempt holds its slot for the whole 10 s timeout) with hundreds of deliveries queued. Both rows
 * come from one run on one platform, so the difference is the neighbour's doing.
 *
 * Rows (a third measures the quiet tenant alone again, to show how much the machine's load alone
 * moves the figures):
 * - quiet tenant alone: BENCH_NOISY_QUIET_RATE events/s (default 20) for the bench duration, via
 *   outbox and relay; p50/p95/p99 of event created_at -> received by its endpoint.
 * - the same load while the noisy tenant's BENCH_NOISY_EVENTS events (default 30, so 600
 *   deliveries) hang; the note says how many of the noisy tenant's requests were held at once.
 */
const { createServer } = require('node:http');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const { Receiver } = require(path.join(ROOT, 'packages/testing/dist'));
const { createEvent, createKafka, Outbox, OutboxRelay } = require(path.join(ROOT, 'packages/events/dist'));
const { createGrpcClient, createLogger, newId, openChannel } = require(path.join(ROOT, 'packages/service-kit/dist'));
const { webhookV1 } = require(path.join(ROOT, 'packages/contracts/dist'));

const QUIET_RATE = Number(process.env.BENCH_NOISY_QUIET_RATE || 20);
const NOISY_EVENTS = Number(process.env.BENCH_NOISY_EVENTS || 30);
const NOISY_WEBHOOKS = 20;

function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Endpoints that take requests and never answer; `held` counts requests open on all of them. */
async function hangingEndpoints(count) {
  const state = {
    held: 0,
    maxHeld: 0,
    received: 0,
    /** @type {import('node:http').Server[]} */
    servers: [],
    /** @type {(i: number, p: string) => string} */
    url: () => '',
    /** @type {() => Promise<unknown>} */
    close: async () => undefined,
  };
  for (let i = 0; i < count; i += 1) {
    const server = createServer();
    server.on('request', (req) => {
      state.received += 1;
      state.held += 1;
      state.maxHeld = Math.max(state.maxHeld, state.held);
      req.socket.once('close', () => (state.held -= 1));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
    state.servers.push(server);
  }
  state.url = (i, p) =>
    `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (state.servers[i % count].address()).port}${p}`;
  state.close = () =>
    Promise.all(
      state.servers.map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }),
    );
  return state;
}

/** Deletes the noisy tenant's webhooks with their deliveries: its backlog must weigh on nothing after. */
async function deleteNoisyHooks(state) {
  for (const id of state.noisyHooks.splice(0)) {
    await state.client.deleteWebhook({ tenantId: state.noisy, id }).catch(() => undefined);
  }
}

/** The quiet tenant's steady load; answers its sorted latencies and how many arrived. */
async function quietRun(ctx, state, what) {
  ctx.log(`noisy neighbour: quiet tenant at ${QUIET_RATE} events/s for ${ctx.duration} s, ${what}`);
  const total = QUIET_RATE * ctx.duration;
  const sent = [];
  const started = Date.now();
  while (sent.length < total) {
    const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * QUIET_RATE) + 1);
    const batch = [];
    while (sent.length + batch.length < due) {
      batch.push(
        createEvent('agent.created', state.quiet, {
          agent_id: `agt_${sent.length + batch.length}`,
          name: 'Quiet agent',
          type: 'assistant',
          status: 'active',
        }),
      );
    }
    if (batch.length > 0) {
      await state.outbox.publish(batch);
      sent.push(...batch);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const ids = new Set(sent.map((e) => e.id));
  const arrivals = () => {
    const first = new Map();
    for (const request of state.receiver.to('/quiet')) {
      const id = JSON.parse(request.body).id;
      if (ids.has(id) && !first.has(id)) first.set(id, request.receivedAt);
    }
    return first;
  };
  const deadline = Date.now() + 120_000;
  while (arrivals().size < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const arrived = arrivals();
  const latencies = sent
    .filter((e) => arrived.has(e.id))
    .map((e) => arrived.get(e.id) - Date.parse(e.created_at))
    .sort((a, b) => a - b);
  return { total, latencies, duration: ctx.duration };
}

function row(label, run, note) {
  return {
    label,
    rps: Math.round(run.latencies.length / run.duration),
    p50: percentile(run.latencies, 50),
    p95: percentile(run.latencies, 95),
    p99: percentile(run.latencies, 99),
    errors: run.total - run.latencies.length,
    note: `req/s column = quiet deliveries/s; latency: event created_at -> received; ${note}`,
  };
}

module.exports = {
  id: 'webhook-noisy-neighbour',
  title: 'Webhook delivery, noisy neighbour',
  target: "a quiet tenant's p99 with a noisy neighbour within a few hundred ms of its p99 alone",

  async setup(ctx) {
    const logger = createLogger('bench-noisy', 'silent');
    const { platform } = ctx;
    const mongoose = require(require.resolve('mongoose', { paths: [path.join(ROOT, 'packages/events')] }));
    const connection = await mongoose
      .createConnection(platform.mongoUri, { dbName: `bench_noisy_${platform.suffix}` })
      .asPromise();
    const outbox = await Outbox.open(connection);
    const relay = new OutboxRelay({
      outbox,
      kafka: createKafka({ brokers: platform.kafkaBrokers, clientId: 'bench-noisy', logger }),
      topic: platform.topic,
      logger,
      pollIntervalMs: 50,
    });
    relay.start();
    const receiver = await Receiver.start();
    const hanging = await hangingEndpoints(2);
    const client = createGrpcClient(
      webhookV1.WebhookServiceDefinition,
      openChannel(`127.0.0.1:${platform.service('webhook').ready.grpc_port}`),
      { deadlineMs: 10_000 },
    );
    const quiet = newId('ten');
    await client.createWebhook({ tenantId: quiet, url: receiver.url('/quiet'), events: ['*'], metadata: {} });
    const noisy = newId('ten');
    const noisyHooks = [];
    for (let i = 0; i < NOISY_WEBHOOKS; i += 1) {
      const { webhook } = await client.createWebhook({
        tenantId: noisy,
        url: hanging.url(i, `/noisy-${i}`),
        events: ['*'],
        metadata: {},
        // Over the free plan's 10 webhooks (quotas, issue 13): the noisy tenant is a big one.
        plan: 'starter',
      });
      noisyHooks.push(webhook.id);
    }
    return { connection, outbox, relay, receiver, hanging, client, quiet, noisy, noisyHooks };
  },

  async run(ctx, state) {
    // Warm-up: connections, JIT, the consumer group settled.
    await quietRun({ ...ctx, duration: 5, log: () => undefined }, state, 'warm-up');
    const alone = await quietRun(ctx, state, 'alone');

    ctx.log(
      `noisy neighbour: noisy tenant publishes ${NOISY_EVENTS} events (${NOISY_EVENTS * NOISY_WEBHOOKS} deliveries)`,
    );
    const noisyEvents = Array.from({ length: NOISY_EVENTS }, (_, i) =>
      createEvent('agent.message.created', state.noisy, {
        agent_id: 'agt_noisy',
        conversation_id: 'ses_noisy',
        message_id: `msg_${i}`,
        content: 'hello',
      }),
    );
    await state.outbox.publish(noisyEvents);
    const deadline = Date.now() + 30_000;
    while (state.hanging.held < 16 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const withNoisy = await quietRun(ctx, state, 'with the noisy neighbour');
    const noisyNote = `noisy tenant: ${state.hanging.received} requests made, at most ${state.hanging.maxHeld} held at once`;
    // Once more without the neighbour: on a shared machine the two rows above can differ by load
    // alone, and a third row shows how much.
    await deleteNoisyHooks(state);
    const after = await quietRun(ctx, state, 'alone again');

    return {
      rows: [
        row('quiet tenant alone', alone, `${QUIET_RATE} events/s`),
        row(
          `quiet tenant, noisy neighbour (${NOISY_WEBHOOKS} webhooks hanging, ${NOISY_EVENTS * NOISY_WEBHOOKS} deliveries)`,
          withNoisy,
          noisyNote,
        ),
        row('quiet tenant alone again (noisy webhooks deleted)', after, `${QUIET_RATE} events/s`),
      ],
    };
  },

  async teardown(_ctx, state) {
    await deleteNoisyHooks(state);
    await state.hanging.close();
    await state.relay.stop();
    await state.connection.close();
    await state.receiver.close();
  },
};
