import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@agentplatform/events';
import { GroupCommit, type Logger } from '@agentplatform/service-kit';
import { decideAfterAttempt } from '../domain/retry-policy.js';
import { signingSecrets } from '../domain/secrets.js';
import { signatureHeaders } from '../domain/signature.js';
import type { AttemptResult, Webhook } from '../domain/types.js';
import type { AttemptOutcome, DeliveryRepository } from '../persistence/delivery.repository.js';
import type { WebhookRepository } from '../persistence/webhook.repository.js';
import type { HttpSender } from './http-sender.js';

export interface DispatcherOptions {
  schedule: readonly number[];
  timeoutMs: number;
  leaseMs: number;
  pollIntervalMs: number;
  concurrency: number;
  /** Deliveries claimed by one poll. */
  claimBatch?: number;
}

/** One attempt to make: a delivery this replica holds the lease of, with what it needs to send. */
export interface DispatchJob {
  deliveryId: string;
  tenantId: string;
  eventId: string;
  eventType: string;
  test: boolean;
  /** Attempts made so far in the current schedule and in total. */
  roundAttempts: number;
  attempts: number;
  leaseToken: string;
  leaseUntil: number;
  webhook: Webhook;
  /** The exact body sent and signed. */
  body: string;
}

/** Clock skew between replicas and the database that a lease tolerates. */
const LEASE_SAFETY_MS = 10_000;

export interface AttemptReport {
  result: AttemptResult;
  status: AttemptOutcome['status'];
}

export function jobBody(envelope: EventEnvelope): string {
  return JSON.stringify(envelope);
}

/** An attempt's outcome waiting to be written, with what follows from it. */
interface PendingOutcome {
  outcome: AttemptOutcome;
  decision: { failWebhook?: string };
  job: DispatchJob;
}

/**
 * Sends deliveries. First attempts come straight from the event consumer (created already leased
 * to this replica), so an event is usually delivered within milliseconds; retries come from a
 * poller that claims due deliveries with a lease, so several replicas share them and no attempt is
 * made twice. At most `concurrency` requests are in flight; beyond that jobs wait in a short
 * queue, and the consumer waits for room (backpressure on Kafka) before handing over more.
 */
export class Dispatcher {
  private readonly queue: DispatchJob[] = [];
  private inFlight = 0;
  private readonly roomWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  /** Outcomes of attempts that end while others are being written go out in one bulk write. */
  private readonly outcomes = new GroupCommit<PendingOutcome, undefined>(
    (_key, batch) => this.storeOutcomes(batch),
    500,
  );
  private running = false;
  private accepting = true;
  private loop?: Promise<void>;
  private sleeper?: () => void;
  private woken = false;
  private wakeTimer?: NodeJS.Timeout;
  private wakeAt = Number.POSITIVE_INFINITY;
  private readonly claimBatch: number;

  constructor(
    private readonly deps: {
      deliveries: DeliveryRepository;
      webhooks: WebhookRepository;
      sender: HttpSender;
      logger: Logger;
    },
    private readonly options: DispatcherOptions,
  ) {
    this.claimBatch = options.claimBatch ?? 200;
  }

  /** Queue length beyond which the consumer waits: two rounds of the in-flight limit. */
  private get highWater(): number {
    return this.options.concurrency * 2;
  }

  /** Resolves once the queue has room; the consumer calls it before handing over a batch. */
  async waitForRoom(): Promise<void> {
    while (this.queue.length >= this.highWater) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
  }

  enqueue(jobs: readonly DispatchJob[]): void {
    if (!this.accepting) {
      // Shutting down: hand the leases back so another replica (or the next start) sends them.
      for (const job of jobs) void this.deps.deliveries.release(job.deliveryId, job.leaseToken).catch(() => undefined);
      return;
    }
    this.queue.push(...jobs);
    this.pump();
  }

  /** Makes one attempt now, outside the queue, and waits until its outcome is stored (test sends). */
  async sendNow(job: DispatchJob): Promise<AttemptReport> {
    const result = await this.attempt(job);
    const { outcome, decision } = this.outcomeOf(job, result);
    await this.deps.deliveries.recordOutcomes([outcome]);
    await this.afterOutcome(job, decision);
    return { result, status: outcome.status };
  }

  /** Starts the retry poller. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.pollLoop();
  }

  /** Wakes the poller now (a delivery was queued again by redeliver or recover). */
  nudge(): void {
    this.woken = true;
    this.sleeper?.();
  }

  /**
   * Graceful stop: no more polling or new jobs; queued jobs that have not started are released,
   * requests in flight finish and their outcomes are stored.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.accepting = false;
    this.nudge();
    clearTimeout(this.wakeTimer);
    await this.loop;
    const unsent = this.queue.splice(0);
    await Promise.all(
      unsent.map((job) => this.deps.deliveries.release(job.deliveryId, job.leaseToken).catch(() => undefined)),
    );
    this.releaseRoom();
    // A job holds its slot until its outcome is stored, so idle means every outcome is written.
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.inFlight += 1;
      void this.run(job).finally(() => {
        this.inFlight -= 1;
        this.pump();
        if (this.inFlight === 0 && this.queue.length === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
      });
    }
    this.releaseRoom();
  }

  private releaseRoom(): void {
    if (this.queue.length < this.highWater || !this.accepting)
      this.roomWaiters.splice(0).forEach((resolve) => resolve());
  }

  /**
   * One job holds its concurrency slot until its outcome is stored, not just until the answer
   * comes: otherwise a database slower than the receivers would let unstored outcomes pile up
   * until their leases ran out, and the poller would send those deliveries again.
   */
  private async run(job: DispatchJob): Promise<void> {
    try {
      // A job that waited so long its lease could run out mid-request is handed back, not sent:
      // another replica may claim it once the lease ends, and two senders must never overlap.
      if (job.leaseUntil - Date.now() < this.options.timeoutMs + 5_000) {
        await this.deps.deliveries.release(job.deliveryId, job.leaseToken);
        return;
      }
      const result = await this.attempt(job);
      const { outcome, decision } = this.outcomeOf(job, result);
      await this.outcomes.submit('', { outcome, decision, job });
    } catch (error) {
      this.deps.logger.error({ err: error, delivery_id: job.deliveryId }, 'delivery attempt failed unexpectedly');
    }
  }

  private attempt(job: DispatchJob): Promise<AttemptResult> {
    const number = job.attempts + 1;
    const headers = {
      ...signatureHeaders({
        body: job.body,
        messageId: job.eventId,
        timestamp: Math.floor(Date.now() / 1000),
        secrets: signingSecrets(job.webhook.signingSecret, job.webhook.previousSecrets),
      }),
      'x-service-event-id': job.eventId,
      'x-service-event-type': job.eventType,
      'x-service-delivery-id': job.deliveryId,
      'x-service-delivery-attempt': String(number),
    };
    return this.deps.sender.send({ url: job.webhook.url, body: job.body, headers, number });
  }

  private outcomeOf(job: DispatchJob, result: AttemptResult) {
    const decision = decideAfterAttempt({
      success: result.success,
      responseStatus: result.responseStatus,
      retryAfter: result.responseHeaders['retry-after'],
      error: result.error,
      roundAttempts: job.roundAttempts + 1,
      schedule: this.options.schedule,
      test: job.test,
    });
    const outcome: AttemptOutcome = {
      id: job.deliveryId,
      leaseToken: job.leaseToken,
      attempt: result,
      status: decision.status,
      nextAttemptAt: decision.nextAttemptAt,
      lastError: decision.lastError,
    };
    return { outcome, decision };
  }

  /** Writes a batch of outcomes; never throws (a failed write leaves the leases to run out). */
  private async storeOutcomes(batch: PendingOutcome[]): Promise<undefined[]> {
    const now = Date.now();
    try {
      const written = await this.deps.deliveries.recordOutcomes(
        batch.map((b) => ({ ...b.outcome, leaseCertain: b.job.leaseUntil - now > LEASE_SAFETY_MS })),
      );
      if (written < batch.length) {
        this.deps.logger.warn({ lost: batch.length - written }, 'attempt outcomes not stored: lease no longer held');
      }
      for (const { job, decision, outcome } of batch) {
        await this.afterOutcome(job, decision).catch((error) =>
          this.deps.logger.error({ err: error, webhook_id: job.webhook.id }, 'cannot mark webhook failed'),
        );
        if (outcome.nextAttemptAt) this.scheduleWake(outcome.nextAttemptAt.getTime());
      }
    } catch (error) {
      // The leases run out and the deliveries are claimed again: at least once, never lost.
      this.deps.logger.error({ err: error, count: batch.length }, 'cannot store attempt outcomes');
    }
    return batch.map(() => undefined);
  }

  private async afterOutcome(job: DispatchJob, decision: { failWebhook?: string }): Promise<void> {
    if (!decision.failWebhook) return;
    const changed = await this.deps.webhooks.markFailed(job.tenantId, job.webhook.id, decision.failWebhook);
    if (changed) {
      this.deps.logger.warn(
        { webhook_id: job.webhook.id, tenant_id: job.tenantId, reason: decision.failWebhook },
        'webhook failed',
      );
    }
  }

  /** Wakes the poller when a retry comes due before its next regular poll. */
  private scheduleWake(at: number): void {
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
        await this.waitForRoom();
        if (!this.running) break;
        claimed = await this.pollOnce();
        failing = false;
      } catch (error) {
        if (!failing) this.deps.logger.warn({ err: error }, 'cannot claim due deliveries; will retry');
        failing = true;
      }
      if (!this.running) break;
      if (claimed < this.claimBatch) await this.sleep(this.options.pollIntervalMs);
    }
  }

  /** Claims due deliveries and queues them; answers how many it claimed. */
  async pollOnce(): Promise<number> {
    const token = randomUUID();
    const room = Math.max(1, Math.min(this.claimBatch, this.highWater - this.queue.length));
    const claimed = await this.deps.deliveries.claimDue(token, room, this.options.leaseMs);
    if (claimed.length === 0) return 0;
    const leaseUntil = claimed[0].lease_until.getTime();
    const webhooks = await this.deps.webhooks.findMany(
      claimed.map((d) => ({ tenantId: d.tenant_id, id: d.webhook_id })),
    );
    const jobs: DispatchJob[] = [];
    for (const record of claimed) {
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
      jobs.push({
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
      });
    }
    this.enqueue(jobs);
    return claimed.length;
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
