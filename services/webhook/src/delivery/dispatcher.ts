import {
  SpanKind,
  contextFromTraceparent,
  failSpan,
  injectTraceHeaders,
  traced,
  type Logger,
} from '@agentplatform/service-kit';
import { destinationOf } from '../domain/destination.js';
import { signingSecrets } from '../domain/secrets.js';
import { signatureHeaders } from '../domain/signature.js';
import type { AttemptResult } from '../domain/types.js';
import type { DeliveryRepository } from '../persistence/delivery.repository.js';
import type { WebhookRepository } from '../persistence/webhook.repository.js';
import type { AttemptReport, DispatchJob } from './dispatch-job.js';
import { FairQueue } from './fair-queue.js';
import type { HttpSender } from './http-sender.js';
import { OutcomeRecorder } from './outcome-recorder.js';
import { RetryPoller } from './retry-poller.js';

export interface DispatcherOptions {
  schedule: readonly number[];
  timeoutMs: number;
  leaseMs: number;
  pollIntervalMs: number;
  /** Requests in flight on this replica, all tenants together. */
  concurrency: number;
  /** Requests in flight for one tenant (WEBHOOK_TENANT_CONCURRENCY). */
  tenantConcurrency: number;
  /** Requests in flight to one destination, host and port (WEBHOOK_HOST_CONCURRENCY). */
  hostConcurrency: number;
  /** Deliveries claimed by one poll. */
  claimBatch?: number;
}

/**
 * How long the consumer waits for room in a tenant's queue before handing the tenant's remaining
 * new deliveries back to the database: while the tenant makes progress (one of its attempts ends
 * at least every ADMIT_IDLE_MS) it keeps waiting, up to ADMIT_MAX_MS, so a burst to healthy
 * endpoints is sent from memory; a tenant whose endpoints hang makes no progress and spills after
 * ADMIT_IDLE_MS. Either way other tenants' events wait at most ADMIT_MAX_MS for it.
 */
const ADMIT_IDLE_MS = 100;
const ADMIT_MAX_MS = 500;

/** Parsed destinations kept; a webhook's URL is parsed once, not on every attempt. */
const DESTINATION_CACHE_SIZE = 10_000;

/**
 * Sends deliveries, fairly between tenants. First attempts come straight from the event consumer
 * (created already leased to this replica), so an event is usually delivered within milliseconds;
 * retries, redeliveries and the first attempts of a tenant whose queue was full come from the
 * RetryPoller; test sends come from the API and go first in their tenant's turn. All of them wait
 * in one FairQueue, which starts a request only while its tenant and its destination are under
 * their shares of concurrency: a tenant whose endpoints hang fills its own share, not the replica's.
 * The parts: FairQueue (what starts next), `attempt` (signing and sending), OutcomeRecorder (what
 * an attempt means for the delivery, by the retry policy, and storing it), RetryPoller (due work).
 */
export class Dispatcher {
  private readonly queue: FairQueue<DispatchJob>;
  private readonly recorder: OutcomeRecorder;
  private readonly poller: RetryPoller;
  /** Callers of `sendNow` waiting for their test send's answer. */
  private readonly testSends = new Map<DispatchJob, (report: AttemptReport) => void>();
  private readonly destinations = new Map<string, string>();
  /** Tenants with due work left in the database for want of room here: the poller is woken for them. */
  private readonly backlogged = new Set<string>();
  private readonly roomWaiters: Array<() => void> = [];
  /** Told whenever a job ends, so its tenant's queue may have room again. */
  private readonly jobEndListeners = new Set<() => void>();
  private readonly idleWaiters: Array<() => void> = [];
  private accepting = true;

  constructor(
    private readonly deps: {
      deliveries: DeliveryRepository;
      webhooks: WebhookRepository;
      sender: HttpSender;
      logger: Logger;
      /** Whether this replica delivers the due work of a tenant (see RetryPoller). */
      ownsTenant: (tenantId: string) => boolean;
    },
    private readonly options: DispatcherOptions,
  ) {
    this.queue = new FairQueue<DispatchJob>(
      {
        total: options.concurrency,
        perTenant: options.tenantConcurrency,
        perDestination: options.hostConcurrency,
        queuedPerTenant: this.queuedPerTenant,
      },
      { tenant: (job) => job.tenantId, destination: (job) => this.destinationOf(job.webhook.url) },
    );
    this.poller = new RetryPoller(
      {
        deliveries: deps.deliveries,
        webhooks: deps.webhooks,
        logger: deps.logger,
        sink: this,
        ownsTenant: deps.ownsTenant,
      },
      { leaseMs: options.leaseMs, pollIntervalMs: options.pollIntervalMs, claimBatch: options.claimBatch ?? 200 },
    );
    this.recorder = new OutcomeRecorder(deps, {
      schedule: options.schedule,
      onRetryScheduled: (at) => this.poller.wakeAtOrBefore(at),
    });
  }

  /** Two rounds of a tenant's share wait here; the rest of its backlog waits in the database. */
  private get queuedPerTenant(): number {
    return this.options.tenantConcurrency * 2;
  }

  /** Queue length beyond which the consumer waits: two rounds of the in-flight limit. */
  private get highWater(): number {
    return this.options.concurrency * 2;
  }

  /**
   * How many new deliveries of a tenant the consumer should create leased to this replica: what its
   * queue takes now and another queueful that may fit while `admit` waits. The rest are created
   * unleased, for the poller.
   */
  leasableFor(tenantId: string): number {
    return this.accepting ? this.queue.roomFor(tenantId) + this.queuedPerTenant : 0;
  }

  /** How many more deliveries of a tenant the queue takes now (its backlog waits in the database). */
  roomFor(tenantId: string): number {
    return this.accepting ? this.queue.roomFor(tenantId) : 0;
  }

  /**
   * Notes that a tenant has due work in the database that its queue had no room for: once the
   * queue is half empty the poller is woken at once, so a tenant with healthy endpoints and a
   * burst of events keeps its share busy instead of waiting for the next regular poll.
   */
  noteBacklog(tenantId: string): void {
    this.backlogged.add(tenantId);
  }

  /** Resolves once the queue as a whole has room; the consumer calls it before handing over a batch. */
  async waitForRoom(): Promise<void> {
    while (this.accepting && this.queue.size >= this.highWater) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
  }

  /**
   * Queues first attempts from the consumer, all leased by one token. A tenant's jobs beyond its
   * queue's room wait for room while the tenant makes progress (ADMIT_IDLE_MS, ADMIT_MAX_MS); the
   * rest are handed back to the database, due at once, and the poller claims them in its turn.
   */
  async admit(jobs: readonly DispatchJob[]): Promise<void> {
    const byTenant = new Map<string, DispatchJob[]>();
    for (const job of jobs) {
      const list = byTenant.get(job.tenantId);
      if (list) list.push(job);
      else byTenant.set(job.tenantId, [job]);
    }
    const latest = Date.now() + ADMIT_MAX_MS;
    await Promise.all([...byTenant].map(([tenantId, list]) => this.admitTenant(tenantId, list, latest)));
  }

  private async admitTenant(tenantId: string, jobs: DispatchJob[], latest: number): Promise<void> {
    let next = 0;
    let deadline = Math.min(latest, Date.now() + ADMIT_IDLE_MS);
    while (next < jobs.length) {
      const room = this.roomFor(tenantId);
      if (room > 0) {
        this.enqueue(jobs.slice(next, next + room));
        next += room;
        deadline = Math.min(latest, Date.now() + ADMIT_IDLE_MS);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0 || !this.accepting) break;
      await this.someJobEnds(left);
    }
    const rest = jobs.slice(next);
    if (rest.length === 0) return;
    await this.deps.deliveries
      .releaseMany(
        rest.map((job) => job.deliveryId),
        rest[0]!.leaseToken,
      )
      .catch((error) => this.deps.logger.warn({ err: error }, 'cannot hand deliveries back; their leases will end'));
    if (this.accepting) this.noteBacklog(tenantId);
  }

  /** Resolves when a job ends, or after `ms`. */
  private someJobEnds(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.jobEndListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.jobEndListeners.add(done);
    });
  }

  enqueue(jobs: readonly DispatchJob[]): void {
    if (!this.accepting) {
      // Shutting down: hand the leases back so another replica (or the next start) sends them.
      for (const job of jobs) void this.release(job);
      return;
    }
    for (const job of jobs) this.queue.push(job);
    this.pump();
  }

  /**
   * Makes one attempt as soon as the tenant's and the destination's shares allow, ahead of the
   * tenant's other waiting deliveries, and answers once its outcome is stored (test sends).
   */
  sendNow(job: DispatchJob): Promise<AttemptReport> {
    return new Promise((resolve) => {
      this.testSends.set(job, resolve);
      this.queue.push(job, true);
      this.pump();
    });
  }

  /** Starts the retry poller. */
  start(): void {
    this.poller.start();
  }

  /** Wakes the poller now (a delivery was queued again by redeliver or recover). */
  nudge(): void {
    this.poller.nudge();
  }

  /**
   * Graceful stop: no more polling or new jobs; queued jobs that have not started are released,
   * requests in flight finish and their outcomes are stored.
   */
  async stop(): Promise<void> {
    this.accepting = false;
    this.releaseRoom();
    await this.poller.stop();
    const unsent = this.queue.drain();
    for (const job of unsent) this.testSends.get(job)?.(this.notSent(job, 'not sent: the service is shutting down'));
    this.testSends.clear();
    await Promise.all(unsent.map((job) => this.release(job)));
    // A job holds its slot until its outcome is stored, so idle means every outcome is written.
    if (this.queue.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private destinationOf(url: string): string {
    let destination = this.destinations.get(url);
    if (destination === undefined) {
      destination = destinationOf(url);
      if (this.destinations.size >= DESTINATION_CACHE_SIZE) this.destinations.clear();
      this.destinations.set(url, destination);
    }
    return destination;
  }

  private pump(): void {
    for (let started = this.queue.next(); started; started = this.queue.next()) {
      const current = started;
      void this.run(current.job).finally(() => {
        this.queue.done(current);
        this.pump();
        for (const listener of [...this.jobEndListeners]) listener();
        if (this.backlogged.has(current.tenant) && this.queue.roomFor(current.tenant) >= this.queuedPerTenant / 2) {
          this.backlogged.delete(current.tenant);
          this.poller.nudge();
        }
        if (this.queue.inFlight === 0 && this.queue.size === 0) this.idleWaiters.splice(0).forEach((r) => r());
      });
    }
    this.releaseRoom();
  }

  private releaseRoom(): void {
    if (this.queue.size < this.highWater || !this.accepting) this.roomWaiters.splice(0).forEach((r) => r());
  }

  /**
   * One job holds its concurrency slot until its outcome is stored, not just until the answer
   * comes: otherwise a database slower than the receivers would let unstored outcomes pile up
   * until their leases ran out, and the poller would send those deliveries again.
   */
  private async run(job: DispatchJob): Promise<void> {
    const answer = this.testSends.get(job);
    this.testSends.delete(job);
    try {
      // A job that waited so long its lease could run out mid-request is handed back, not sent:
      // another replica may claim it once the lease ends, and two senders must never overlap.
      if (job.leaseUntil - Date.now() < this.options.timeoutMs + 5_000) {
        await this.release(job);
        answer?.(this.notSent(job, 'not sent yet: it waited too long for a free slot and is queued again'));
        return;
      }
      const result = await this.attempt(job);
      if (answer) answer(await this.recorder.recordNow(job, result));
      else await this.recorder.record(job, result);
    } catch (error) {
      this.deps.logger.error({ err: error, delivery_id: job.deliveryId }, 'delivery attempt failed unexpectedly');
      answer?.(this.notSent(job, 'not sent: an internal error stopped the attempt'));
    }
  }

  private notSent(job: DispatchJob, error: string): AttemptReport {
    const result: AttemptResult = {
      number: job.attempts + 1,
      attemptedAt: new Date(),
      durationMs: 0,
      responseHeaders: {},
      error,
      success: false,
    };
    return { result, status: 'pending' };
  }

  private release(job: DispatchJob): Promise<void> {
    return this.deps.deliveries.release(job.deliveryId, job.leaseToken).catch(() => undefined);
  }

  /**
   * One attempt, a client span in the trace of the event's consumption (tracing on); the request
   * carries the span's `traceparent`, so a receiver that traces joins the same trace.
   */
  private attempt(job: DispatchJob): Promise<AttemptResult> {
    return traced(
      'webhook delivery',
      {
        kind: SpanKind.CLIENT,
        parent: contextFromTraceparent(job.traceparent),
        attributes: {
          'http.request.method': 'POST',
          'agentplatform.delivery.id': job.deliveryId,
          'agentplatform.event.id': job.eventId,
          'agentplatform.event.type': job.eventType,
          'agentplatform.webhook.id': job.webhook.id,
          'agentplatform.tenant.id': job.tenantId,
          'agentplatform.delivery.attempt': job.attempts + 1,
        },
      },
      async (span) => {
        const result = await this.send(job);
        if (span) {
          if (result.responseStatus !== undefined)
            span.setAttribute('http.response.status_code', result.responseStatus);
          if (!result.success) failSpan(span, new Error(result.error ?? `HTTP ${result.responseStatus}`));
        }
        return result;
      },
    );
  }

  private send(job: DispatchJob): Promise<AttemptResult> {
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
    return this.deps.sender.send({
      url: job.webhook.url,
      body: job.body,
      headers: injectTraceHeaders(headers),
      number,
    });
  }
}
