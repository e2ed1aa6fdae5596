import { GroupCommit, type Logger } from '@agentplatform/service-kit';
import { decideAfterAttempt } from '../domain/retry-policy.js';
import type { AttemptResult } from '../domain/types.js';
import type { AttemptOutcome, DeliveryRepository } from '../persistence/delivery.repository.js';
import type { WebhookRepository } from '../persistence/webhook.repository.js';
import type { AttemptReport, DispatchJob } from './dispatch-job.js';

/** Clock skew between replicas and the database that a lease tolerates. */
const LEASE_SAFETY_MS = 10_000;

/** An attempt's outcome waiting to be written, with what follows from it. */
interface PendingOutcome {
  outcome: AttemptOutcome;
  failWebhook?: string;
  job: DispatchJob;
}

/**
 * Turns an attempt's result into the delivery's next state (by the retry policy) and stores it:
 * the attempt log entry, the status, the next attempt's time, and a failed webhook when the
 * schedule is used up or the receiver answered 410.
 */
export class OutcomeRecorder {
  /** Outcomes of attempts that end while others are being written go out in one bulk write. */
  private readonly pending = new GroupCommit<PendingOutcome, undefined>((_key, batch) => this.storeBatch(batch), 500);

  constructor(
    private readonly deps: { deliveries: DeliveryRepository; webhooks: WebhookRepository; logger: Logger },
    private readonly options: {
      schedule: readonly number[];
      /** Told of every retry stored, so the poller can wake when it comes due. */
      onRetryScheduled: (at: number) => void;
    },
  ) {}

  /** Stores an outcome with others that end at the same time; never throws. */
  async record(job: DispatchJob, result: AttemptResult): Promise<void> {
    await this.pending.submit('', this.pendingOutcome(job, result));
  }

  /** Stores one outcome at once and answers it (test sends, whose caller waits for the answer). */
  async recordNow(job: DispatchJob, result: AttemptResult): Promise<AttemptReport> {
    const { outcome, failWebhook } = this.pendingOutcome(job, result);
    await this.deps.deliveries.recordOutcomes([outcome]);
    await this.failWebhook(job, failWebhook);
    return { result, status: outcome.status };
  }

  private pendingOutcome(job: DispatchJob, result: AttemptResult): PendingOutcome {
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
    return { outcome, failWebhook: decision.failWebhook, job };
  }

  /** Writes a batch of outcomes; never throws (a failed write leaves the leases to run out). */
  private async storeBatch(batch: PendingOutcome[]): Promise<undefined[]> {
    const now = Date.now();
    try {
      const written = await this.deps.deliveries.recordOutcomes(
        batch.map((b) => ({ ...b.outcome, leaseCertain: b.job.leaseUntil - now > LEASE_SAFETY_MS })),
      );
      if (written < batch.length) {
        this.deps.logger.warn({ lost: batch.length - written }, 'attempt outcomes not stored: lease no longer held');
      }
      for (const { job, failWebhook, outcome } of batch) {
        await this.failWebhook(job, failWebhook).catch((error) =>
          this.deps.logger.error({ err: error, webhook_id: job.webhook.id }, 'cannot mark webhook failed'),
        );
        if (outcome.nextAttemptAt) this.options.onRetryScheduled(outcome.nextAttemptAt.getTime());
      }
    } catch (error) {
      // The leases run out and the deliveries are claimed again: at least once, never lost.
      this.deps.logger.error({ err: error, count: batch.length }, 'cannot store attempt outcomes');
    }
    return batch.map(() => undefined);
  }

  private async failWebhook(job: DispatchJob, reason: string | undefined): Promise<void> {
    if (!reason) return;
    const changed = await this.deps.webhooks.markFailed(job.tenantId, job.webhook.id, reason);
    if (changed) {
      this.deps.logger.warn({ webhook_id: job.webhook.id, tenant_id: job.tenantId, reason }, 'webhook failed');
    }
  }
}
