import { randomUUID } from 'node:crypto';
import type { Logger } from '@agentplatform/service-kit';
import type { DeliveryRepository } from '../persistence/delivery.repository.js';
import type { WebhookRepository } from '../persistence/webhook.repository.js';
import type { DispatchJob } from './dispatch-job.js';

/** Tenants one poll looks at, at most: each is one index read, whether it has room or not. */
const MAX_TENANT_STEPS = 64;

/** Where claimed deliveries go: the dispatcher's fair queue. */
export interface ClaimSink {
  /** How many more deliveries of this tenant may be handed over now. */
  roomFor(tenantId: string): number;
  /** The tenant may have more due work than was claimed: wake the poller when it has room. */
  noteBacklog(tenantId: string): void;
  /** Resolves once the queue as a whole has room. */
  waitForRoom(): Promise<void>;
  enqueue(jobs: readonly DispatchJob[]): void;
}

export interface RetryPollerOptions {
  leaseMs: number;
  pollIntervalMs: number;
  /** Deliveries claimed by one poll, all tenants together. */
  claimBatch: number;
}

/**
 * Finds deliveries that are due (retries, redeliveries, recoveries, and first attempts the
 * consumer left in the database because their tenant's queue was full) of the tenants this replica
 * delivers for, and claims them with a lease, so no attempt is made twice. It claims tenant by tenant,
 * each only as many as its queue has room for, starting each poll after the tenant served last:
 * a tenant with thousands of due retries takes its share, never the whole poll.
 */
export class RetryPoller {
  private running = false;
  private loop?: Promise<void>;
  private sleeper?: () => void;
  private woken = false;
  private wakeTimer?: NodeJS.Timeout;
  private wakeAt = Number.POSITIVE_INFINITY;
  /** The tenant looked at last: the next poll starts after it. */
  private cursor = '';

  constructor(
    private readonly deps: {
      deliveries: DeliveryRepository;
      webhooks: WebhookRepository;
      logger: Logger;
      sink: ClaimSink;
      /**
       * Whether this replica delivers for a tenant: the tenant's Kafka partition is one this
       * replica consumes, so all of a tenant's attempts run on one replica and its share holds
       * across the fleet (docs/webhooks.md, "Across replicas").
       */
      ownsTenant: (tenantId: string) => boolean;
    },
    private readonly options: RetryPollerOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.pollLoop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    clearTimeout(this.wakeTimer);
    await this.loop;
  }

  /** Polls now (a delivery was queued again by redeliver or recover). */
  nudge(): void {
    this.woken = true;
    this.sleeper?.();
  }

  /** Wakes the poller when a retry comes due before its next regular poll. */
  wakeAtOrBefore(at: number): void {
    if (!this.running || at >= this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeAt = Number.POSITIVE_INFINITY;
        this.nudge();
      },
      Math.max(0, at - Date.now()),
    );
  }

  private async pollLoop(): Promise<void> {
    let failing = false;
    while (this.running) {
      let claimed = 0;
      try {
        await this.deps.sink.waitForRoom();
        if (!this.running) break;
        claimed = await this.pollOnce();
        failing = false;
      } catch (error) {
        if (!failing) this.deps.logger.warn({ err: error }, 'cannot claim due deliveries; will retry');
        failing = true;
      }
      if (!this.running) break;
      if (claimed < this.options.claimBatch) await this.sleep(this.options.pollIntervalMs);
    }
  }

  /**
   * Claims due deliveries, tenant by tenant in turn, and queues them; answers how many it claimed.
   * Walks the tenants with due work in id order from the one after the cursor, one bounded index
   * read per tenant (never a list of all tenants), and stops when the batch is full, when it has
   * come round, or after `MAX_TENANT_STEPS` tenants; the next poll goes on from where this one
   * stopped.
   */
  async pollOnce(): Promise<number> {
    const now = new Date();
    const token = randomUUID();
    const visited = new Set<string>();
    let budget = this.options.claimBatch;
    let claimed = 0;
    let after = this.cursor;
    let wrapped = false;
    for (let step = 0; step < MAX_TENANT_STEPS && budget > 0; step += 1) {
      const tenantId = await this.deps.deliveries.nextTenantWithDueWork(after, now);
      if (tenantId === undefined) {
        if (wrapped || after === '') break;
        wrapped = true;
        after = '';
        continue;
      }
      if (visited.has(tenantId)) break;
      visited.add(tenantId);
      after = tenantId;
      if (!this.deps.ownsTenant(tenantId)) continue;
      const room = Math.min(budget, this.deps.sink.roomFor(tenantId));
      if (room <= 0) continue;
      const jobs = await this.claim(tenantId, token, room, now);
      if (jobs.claimed === room) this.deps.sink.noteBacklog(tenantId);
      budget -= jobs.claimed;
      claimed += jobs.claimed;
      this.deps.sink.enqueue(jobs.sendable);
    }
    this.cursor = after;
    return claimed;
  }

  private async claim(tenantId: string, token: string, limit: number, now: Date) {
    const records = await this.deps.deliveries.claimDue(token, limit, this.options.leaseMs, now, tenantId);
    if (records.length === 0) return { claimed: 0, sendable: [] };
    const leaseUntil = records[0].lease_until.getTime();
    const webhooks = await this.deps.webhooks.findMany(records.map((d) => ({ tenantId, id: d.webhook_id })));
    const sendable: DispatchJob[] = [];
    for (const record of records) {
      const webhook = webhooks.get(record.webhook_id);
      const body = record.body;
      if (!webhook || (webhook.status !== 'active' && !record.test)) {
        await this.deps.deliveries.failUnsent(
          record._id,
          token,
          `not sent: the webhook is ${webhook ? webhook.status : 'deleted'}`,
        );
        continue;
      }
      if (!body) {
        await this.deps.deliveries.failUnsent(record._id, token, 'not sent: the event is no longer stored');
        continue;
      }
      sendable.push({
        deliveryId: record._id,
        tenantId: record.tenant_id,
        eventId: record.event_id,
        eventType: record.event_type,
        test: record.test ?? false,
        roundAttempts: record.round_attempts ?? 0,
        attempts: record.attempts ?? 0,
        leaseToken: token,
        leaseUntil,
        webhook,
        body,
        traceparent: record.traceparent ?? undefined,
      });
    }
    return { claimed: records.length, sendable };
  }

  /** Sleeps until the next poll, or less when nudged (also by a nudge that came while polling). */
  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleeper = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleeper = done;
    });
  }
}
