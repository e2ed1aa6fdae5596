import type { Logger } from '@agentplatform/service-kit';
import { cachedDestinations } from '../domain/destination.js';
import type { AttemptResult } from '../domain/types.js';
import type { DeliveryRepository } from '../persistence/delivery.repository.js';
import type { WebhookRepository } from '../persistence/webhook.repository.js';
import { Admission } from './admission.js';
import { sendAttempt, type RequestSender } from './attempt-sender.js';
import { DestinationLimits } from './destination-limits.js';
import { notSent, type AttemptReport, type DispatchJob } from './dispatch-job.js';
import { FairQueue, type Started } from './fair-queue.js';
import { OutcomeRecorder } from './outcome-recorder.js';
import { RetryPoller } from './retry-poller.js';

export interface DispatcherOptions {
  schedule: readonly number[];
  timeoutMs: number;
  leaseMs: number;
  pollIntervalMs: number;
  /** Jobs started and not finished on this replica, all tenants together. */
  concurrency: number;
  /** Requests in flight for one tenant (WEBHOOK_TENANT_CONCURRENCY). */
  tenantConcurrency: number;
  /** Requests in flight to one destination, host and port, at the least (WEBHOOK_HOST_CONCURRENCY). */
  hostConcurrency: number;
  /** Deliveries claimed by one poll. */
  claimBatch?: number;
}

/** A fast, healthy destination earns up to this many times the base share (DestinationLimits). */
const DESTINATION_GROWTH = 8;
/** An answer slower than this does not earn a destination more slots, and gives some back. */
const FAST_ANSWER_MS = 1_000;
/** Jobs of one tenant in memory at most, in rounds of its share; two rounds are guaranteed. */
const TENANT_ROUNDS = 16;
const GUARANTEED_ROUNDS = 2;
/** The pool beyond the guaranteed rounds, all tenants together: jobs per slot, and bytes. */
const POOL_JOBS_PER_SLOT = 8;
const POOL_BYTES = 32 * 1024 * 1024;

/** A job in the queue, with the caller waiting for its answer when it is a test send. */
interface Queued {
  job: DispatchJob;
  reply?: (report: AttemptReport) => void;
}

/**
 * Sends deliveries, fairly between tenants. The parts: Admission (first attempts from the Kafka
 * consumer), RetryPoller (due work from the database), FairQueue and DestinationLimits (what
 * starts next), `sendAttempt` (signing and sending), OutcomeRecorder (what an attempt means by the
 * retry policy, and storing it). This class ties them together: it starts what the queue allows,
 * frees a job's tenant and destination slots when its answer comes and its replica slot when its
 * outcome is stored, and stops gracefully.
 */
export class Dispatcher {
  readonly admission: Admission;
  private readonly queue: FairQueue<Queued>;
  private readonly limits: DestinationLimits;
  private readonly recorder: OutcomeRecorder;
  private readonly poller: RetryPoller;
  private readonly guaranteed: number;
  private idle?: () => void;
  private accepting = true;

  constructor(
    private readonly deps: {
      deliveries: DeliveryRepository;
      webhooks: WebhookRepository;
      sender: RequestSender;
      logger: Logger;
      /** Whether this replica delivers the due work of a tenant (see RetryPoller). */
      ownsTenant: (tenantId: string) => boolean;
    },
    private readonly options: DispatcherOptions,
  ) {
    this.guaranteed = options.tenantConcurrency * GUARANTEED_ROUNDS;
    const destinationOf = cachedDestinations();
    this.limits = new DestinationLimits({
      base: options.hostConcurrency,
      max: options.hostConcurrency * DESTINATION_GROWTH,
      fastMs: FAST_ANSWER_MS,
    });
    this.queue = new FairQueue<Queued>(
      {
        total: options.concurrency,
        perTenant: options.tenantConcurrency,
        perDestination: (destination) => this.limits.limitOf(destination),
      },
      {
        guaranteed: this.guaranteed,
        perTenantMax: options.tenantConcurrency * TENANT_ROUNDS,
        poolJobs: options.concurrency * POOL_JOBS_PER_SLOT,
        poolBytes: POOL_BYTES,
      },
      {
        tenant: (q) => q.job.tenantId,
        destination: (q) => destinationOf(q.job.webhook.url),
        bytes: (q) => q.job.body.length,
      },
    );
    this.admission = new Admission({
      roomFor: (tenantId) => this.queue.roomFor(tenantId),
      poolFull: () => this.queue.poolFull,
      guaranteed: this.guaranteed,
      accepting: () => this.accepting,
      enqueue: (jobs) => this.enqueue(jobs),
      handBack: (jobs) => this.handBack(jobs),
      nudge: () => this.nudge(),
    });
    this.poller = new RetryPoller(
      {
        deliveries: deps.deliveries,
        webhooks: deps.webhooks,
        logger: deps.logger,
        sink: {
          roomFor: (tenantId) => this.admission.roomFor(tenantId),
          noteBacklog: (tenantId) => this.admission.noteBacklog(tenantId),
          waitForRoom: () => this.admission.waitForRoom(),
          enqueue: (jobs) => this.enqueue(jobs),
        },
        ownsTenant: deps.ownsTenant,
      },
      { leaseMs: options.leaseMs, pollIntervalMs: options.pollIntervalMs, claimBatch: options.claimBatch ?? 200 },
    );
    this.recorder = new OutcomeRecorder(deps, {
      schedule: options.schedule,
      onRetryScheduled: (at) => this.poller.wakeAtOrBefore(at),
    });
  }

  /** Queues leased jobs behind their tenants' others; while shutting down, hands them back. */
  enqueue(jobs: readonly DispatchJob[]): void {
    if (!this.accepting) {
      void this.handBack(jobs);
      return;
    }
    for (const job of jobs) this.queue.push({ job });
    this.pump();
  }

  /**
   * Makes one attempt as soon as the tenant's and the destination's shares allow, ahead of the
   * tenant's other waiting deliveries, and answers once its outcome is stored (test sends).
   */
  sendNow(job: DispatchJob): Promise<AttemptReport> {
    if (!this.accepting) return Promise.resolve(notSent(job, 'not sent: the service is shutting down'));
    return new Promise((reply) => {
      this.queue.push({ job, reply }, true);
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
   * Graceful stop: no more polling or new jobs; queued jobs that have not started are handed back,
   * requests in flight finish and their outcomes are stored.
   */
  async stop(): Promise<void> {
    this.accepting = false;
    await this.poller.stop();
    const unsent = this.queue.drain();
    for (const { job, reply } of unsent) reply?.(notSent(job, 'not sent: the service is shutting down'));
    await this.handBack(unsent.map((q) => q.job));
    // A job holds its replica slot until its outcome is stored, so idle means every outcome is written.
    if (this.queue.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  private pump(): void {
    for (let started = this.queue.next(); started; started = this.queue.next()) {
      const current = started;
      void this.run(current).finally(() => {
        this.queue.done(current);
        this.pump();
        this.admission.jobEnded(current.tenant);
        if (this.queue.inFlight === 0 && this.queue.size === 0) this.idle?.();
      });
    }
  }

  /**
   * One job holds its replica slot until its outcome is stored, not just until the answer comes:
   * otherwise a database slower than the receivers would let unstored outcomes pile up until their
   * leases ran out, and the poller would send those deliveries again. Its tenant's and
   * destination's slots bound requests in flight: an answered request frees them at once (its
   * connection goes back to the pool); one given up on (timeout, network error) keeps them until
   * its outcome is stored, because its connection is still being torn down and the destination
   * may not know yet that it was abandoned.
   */
  private async run(started: Started<Queued>): Promise<void> {
    const { job, reply } = started.job;
    try {
      // A job that waited so long its lease could run out mid-request is handed back, not sent:
      // another replica may claim it once the lease ends, and two senders must never overlap.
      if (job.leaseUntil - Date.now() < this.options.timeoutMs + 5_000) {
        await this.handBack([job]);
        reply?.(notSent(job, 'not sent yet: it waited too long for a free slot and is queued again'));
        return;
      }
      const result = await sendAttempt(this.deps.sender, job);
      this.requestEnded(started, result);
      if (reply) reply(await this.recorder.recordNow(job, result));
      else await this.recorder.record(job, result);
    } catch (error) {
      this.deps.logger.error({ err: error, delivery_id: job.deliveryId }, 'delivery attempt failed unexpectedly');
      reply?.(notSent(job, 'not sent: an internal error stopped the attempt'));
    }
  }

  private requestEnded(started: Started<Queued>, result: AttemptResult): void {
    const answered = result.responseStatus !== undefined;
    this.limits.ended(started.destination, {
      answered,
      status: result.responseStatus,
      durationMs: result.durationMs,
      saturated: started.saturated,
    });
    if (!answered) return;
    this.queue.requestEnded(started);
    this.pump();
  }

  private async handBack(jobs: readonly DispatchJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const byToken = new Map<string, string[]>();
    for (const job of jobs) {
      const ids = byToken.get(job.leaseToken);
      if (ids) ids.push(job.deliveryId);
      else byToken.set(job.leaseToken, [job.deliveryId]);
    }
    await Promise.all(
      [...byToken].map(([token, ids]) =>
        this.deps.deliveries
          .releaseMany(ids, token)
          .catch((error) =>
            this.deps.logger.warn({ err: error }, 'cannot hand deliveries back; their leases will end'),
          ),
      ),
    );
  }
}
