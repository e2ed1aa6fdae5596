// @ts-check
'use strict';
/**
 * Webhook delivery (issue 6): events written to an outbox and relayed to Kafka, the way every
 * service emits them, consumed by the webhook service and POSTed, signed, to a local receiver.
 *
 * Rows:
 * - throughput: a burst of BENCH_WEBHOOK_BURST events (default 5,000: on the local MongoDB stand-in, whose writes slow down as the collection grows, a larger burst mostly measures the stand-in) across 12 tenants, one
 *   webhook each, put on the topic directly (as the relays would, all at once) so the row measures
 *   the webhook service, not the producers' outboxes; deliveries/s = events / (last delivery -
 *   first delivery).
 * - latency: a steady 500 events/s for the bench duration; p50/p99 of event created_at ->
 *   received by the endpoint.
 */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const { Receiver } = require(path.join(ROOT, 'packages/testing/dist'));
const { createEvent, createKafka, EVENT_HEADERS, Outbox, OutboxRelay } = require(
  path.join(ROOT, 'packages/events/dist'),
);
const { createGrpcClient, createLogger, newId, openChannel } = require(path.join(ROOT, 'packages/service-kit/dist'));
const { webhookV1 } = require(path.join(ROOT, 'packages/contracts/dist'));

const TENANTS = 12;
const BURST = Number(process.env.BENCH_WEBHOOK_BURST || 5_000);
const RATE = 500;

function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// Each request's body parsed once: `received` runs every 100 ms over every request so far, and
// parsing them all each time made the bench process a large share of the machine's CPU.
const parsedBodies = new WeakMap();
function bodyOf(request) {
  let body = parsedBodies.get(request);
  if (body === undefined) parsedBodies.set(request, (body = JSON.parse(request.body)));
  return body;
}

/** The requests carrying the given event ids (the first of each), and how many repeats came. */
function received(receiver, ids) {
  const first = new Map();
  let repeats = 0;
  for (const request of receiver.to('/bench')) {
    const id = bodyOf(request).id;
    if (!ids.has(id)) continue;
    if (first.has(id)) repeats += 1;
    else first.set(id, request);
  }
  return { requests: [...first.values()], repeats };
}

async function waitForAll(receiver, ids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (received(receiver, ids).requests.length < ids.size) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** Produces RATE events/s for the bench duration with `publish`; answers the latencies seen. */
async function steadyRun(ctx, receiver, event, publish, what) {
  ctx.log(`webhooks: ${RATE} events/s for ${ctx.duration} s, ${what}`);
  const total = RATE * ctx.duration;
  const tickMs = 20;
  const perTick = (RATE * tickMs) / 1000;
  const ids = new Set();
  const started = Date.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * RATE) + perTick);
    if (due > sent) {
      const batch = [];
      for (; sent < due; sent += 1) batch.push(event(sent));
      batch.forEach((e) => ids.add(e.id));
      await publish(batch);
    }
    await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  const done = await waitForAll(receiver, ids, 300_000);
  const seen = received(receiver, ids);
  const latencies = seen.requests.map((r) => r.receivedAt - Date.parse(bodyOf(r).created_at)).sort((a, b) => a - b);
  return { total, done, seen, latencies, duration: ctx.duration };
}

function steadyRow(run, how) {
  return {
    label: `event -> delivered at ${RATE} events/s, ${how}`,
    rps: Math.round(run.seen.requests.length / run.duration),
    p50: percentile(run.latencies, 50),
    p95: percentile(run.latencies, 95),
    p99: percentile(run.latencies, 99),
    errors: run.total - run.seen.requests.length + run.seen.repeats,
    note: `latency: event created_at -> received by the endpoint${run.done ? '' : `; only ${run.seen.requests.length} of ${run.total} delivered`}; repeats: ${run.seen.repeats}`,
  };
}

module.exports = {
  id: 'webhook-delivery',
  title: 'Webhook delivery',
  baseline: 'koa-baseline',
  target: '>= 2,000 deliveries/s to a local receiver; p99 event -> delivered <= 250 ms at 500 events/s',

  async setup(ctx) {
    const logger = createLogger('bench-webhooks', 'silent');
    const { platform } = ctx;
    const mongoose = require(require.resolve('mongoose', { paths: [path.join(ROOT, 'packages/events')] }));
    const connection = await mongoose
      .createConnection(platform.mongoUri, { dbName: `bench_producer_${platform.suffix}` })
      .asPromise();
    const outbox = await Outbox.open(connection);
    const relay = new OutboxRelay({
      outbox,
      kafka: createKafka({ brokers: platform.kafkaBrokers, clientId: 'bench-webhooks', logger }),
      topic: platform.topic,
      logger,
      pollIntervalMs: 50,
    });
    relay.start();
    const producer = createKafka({
      brokers: platform.kafkaBrokers,
      clientId: 'bench-webhooks-burst',
      logger,
    }).producer();
    await producer.connect();
    const receiver = await Receiver.start();
    const client = createGrpcClient(
      webhookV1.WebhookServiceDefinition,
      openChannel(`127.0.0.1:${platform.service('webhook').ready.grpc_port}`),
      { deadlineMs: 10_000 },
    );
    const tenants = [];
    for (let i = 0; i < TENANTS; i += 1) {
      const tenantId = newId('ten');
      await client.createWebhook({ tenantId, url: receiver.url('/bench'), events: ['*'], metadata: {} });
      tenants.push(tenantId);
    }
    return { connection, outbox, relay, producer, receiver, tenants };
  },

  async run(ctx, state) {
    const { outbox, producer, receiver, tenants } = state;
    const putOnTopic = (batch) =>
      producer.send({
        topic: ctx.platform.topic,
        acks: -1,
        messages: batch.map((e) => ({
          key: e.tenant_id,
          value: JSON.stringify(e),
          headers: { [EVENT_HEADERS.type]: e.type, [EVENT_HEADERS.id]: e.id },
        })),
      });
    let counter = 0;
    const event = (label) =>
      createEvent('agent.created', tenants[counter++ % tenants.length], {
        agent_id: `agt_${label}`,
        name: 'Bench agent',
        type: 'assistant',
        status: 'active',
      });

    // Warm-up: connections, JIT, indexes; first through the outbox, then a burst like the measured
    // one (a fifth of its size), so the measured burst finds the sender's connections open and its
    // code compiled, as it would be in a service that has been running.
    const warmup = Array.from({ length: 200 }, (_, i) => event(`warm-${i}`));
    await outbox.publish(warmup);
    await waitForAll(receiver, new Set(warmup.map((e) => e.id)), 60_000);
    const warmBurst = Array.from({ length: Math.ceil(BURST / 5) }, (_, i) => event(`warm-burst-${i}`));
    for (let i = 0; i < warmBurst.length; i += 1000) await putOnTopic(warmBurst.slice(i, i + 1000));
    await waitForAll(receiver, new Set(warmBurst.map((e) => e.id)), 600_000);

    // Throughput: one burst.
    ctx.log(`webhooks: burst of ${BURST} events`);
    const burstIds = new Set();
    for (let i = 0; i < BURST; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, BURST - i) }, (_, j) => event(i + j));
      batch.forEach((e) => burstIds.add(e.id));
      await putOnTopic(batch);
    }
    const burstDone = await waitForAll(receiver, burstIds, 600_000);
    const burst = received(receiver, burstIds);
    const times = burst.requests.map((r) => r.receivedAt);
    const burstRate = Math.round(
      burst.requests.length / Math.max(0.001, (Math.max(...times) - Math.min(...times)) / 1000),
    );
    // Epoch ms of the first and last delivery, to line up with per-process CPU samples.
    ctx.log(`webhooks: burst delivered from ${Math.min(...times)} to ${Math.max(...times)}`);

    // Latency at a steady rate: through outbox and relay (the production path), then straight onto the topic.
    const viaOutbox = await steadyRun(ctx, receiver, event, (batch) => outbox.publish(batch), 'via outbox');
    const direct = await steadyRun(ctx, receiver, event, (batch) => putOnTopic(batch), 'straight onto the topic');

    return {
      rows: [
        {
          label: `webhook deliveries/s, burst of ${BURST} events`,
          rps: burstRate,
          errors: BURST - burst.requests.length + burst.repeats,
          note: `req/s column = deliveries/s${burstDone ? '' : `; only ${burst.requests.length} delivered in 10 min`}; repeats: ${burst.repeats}`,
        },
        steadyRow(viaOutbox, 'via outbox and relay'),
        steadyRow(direct, 'put on the topic directly'),
      ],
    };
  },

  async teardown(_ctx, state) {
    await state.relay.stop();
    await state.producer.disconnect();
    await state.connection.close();
    await state.receiver.close();
  },
};
