export interface PacingOptions {
  /**
   * Longest the backlog waits for this replica's writes to pause before it embeds, counted from
   * the first item of a burst (see yieldToWrites); 0: it never waits.
   */
  yieldMs: number;
  /** A pause this long in the replica's writes ends a burst (default QUIET_MS). */
  quietMs?: number;
  /**
   * Least share of one core the model may take while a burst goes on past `yieldMs` (default
   * BURST_SHARE); 1: all it can.
   */
  burstShare?: number;
  /** Age of a burst at which the backlog takes the full rate (default FULL_RATE_MS; see share). */
  fullRateMs?: number;
}

/**
 * The pause in this replica's writes after which the backlog embeds: a burst's writes (API adds,
 * a chat's episodic memory, content updates) follow each other closer than this.
 */
const QUIET_MS = 100;

/**
 * While a burst of writes goes on past `yieldMs`, the backlog takes at least this share of one
 * core: after each batch it rests at most three times as long as the batch took. The request work
 * of a burst (a chat costs all processes together about as much CPU as embedding its exchange)
 * keeps the cores first; the backlog still drains at a quarter of its rate meanwhile, and at full
 * rate once the writes pause.
 */
const BURST_SHARE = 0.25;

/**
 * The burst's age at which the backlog's share is the whole core (see share): a steady stream of
 * writes keeps the replica in one burst for as long as it lasts, and a fixed share below the
 * stream's need (a quarter drained 11 items/s where the soak mix wrote 22/s) grew the backlog
 * without bound. A quarter of a core at 10 s (EMBEDDINGS_YIELD_MS's default), all of it at 40 s.
 */
const FULL_RATE_MS = 40_000;

/**
 * When the embedding backlog works, given this replica's writes: it leaves the cores to a burst
 * of writes (each a request being answered) for up to `yieldMs`, then takes a share of a core
 * that grows with the burst's age until it has caught up with the writes (found nothing to
 * claim). Only this replica's writes count: a replica that takes no writes embeds the others'
 * items at once.
 */
export class WritePacing {
  /** When this replica's first write that the backlog has not caught up with yet came. */
  private burstSince: number | undefined;
  /** When this replica's latest write came. */
  private lastWrite = 0;
  private stopped = false;
  /** Ends a rest at once (stop). */
  private unrest: (() => void) | undefined;

  constructor(private readonly options: PacingOptions) {}

  /** A write on this replica left an item without a vector. */
  write(): void {
    const now = Date.now();
    this.lastWrite = now;
    this.burstSince ??= now;
  }

  /**
   * A claim made at `claimedAt` found nothing waiting: the backlog has caught up with every write
   * made before it, and the next write starts a new burst.
   */
  caughtUp(claimedAt: number): void {
    if (this.burstSince !== undefined && this.burstSince <= claimedAt) this.burstSince = undefined;
  }

  /** Ends any rest at once, and every later one. */
  stop(): void {
    this.stopped = true;
    this.unrest?.();
  }

  /**
   * Gives the cores to a burst of writes on this replica: while they keep coming (one within the
   * last `quietMs`), the backlog waits, so that the model's CPU (several milliseconds per item)
   * does not compete with the writes' own. It never waits longer than `yieldMs` after the first
   * write of the burst: from then on it works until it has caught up, at `share` of a core while
   * the burst goes on (see pace) and at full rate once it pauses. Items are lexically searchable
   * meanwhile.
   */
  async yieldToWrites(): Promise<void> {
    const quietMs = this.options.quietMs ?? QUIET_MS;
    while (!this.stopped && this.burstSince !== undefined && this.options.yieldMs > 0) {
      const until = Math.min(this.lastWrite + quietMs, this.burstSince + this.options.yieldMs);
      const wait = until - Date.now();
      if (wait <= 0) return;
      await this.rest(wait);
    }
  }

  /**
   * After a batch that took `busyMs`, during a burst that has outlasted `yieldMs`: rests so that
   * the backlog's share of one core stays at `share`, or until the writes pause (then it goes on
   * at full rate at once). Outside a burst, or with `yieldMs` 0, it does not rest.
   */
  async pace(busyMs: number): Promise<void> {
    const share = this.share();
    if (share >= 1 || this.options.yieldMs <= 0 || !this.inBurst()) return;
    const until = Date.now() + (busyMs * (1 - share)) / share;
    const quietMs = this.options.quietMs ?? QUIET_MS;
    while (!this.stopped && this.inBurst()) {
      const wait = Math.min(until, this.lastWrite + quietMs) - Date.now();
      if (wait <= 0) return;
      await this.rest(wait);
    }
  }

  /**
   * The backlog's share of one core during a burst: the burst's age over `fullRateMs`, at least
   * `burstShare`, at most 1. A stream of w items/s that the model drains at C/s at full rate stops
   * growing the backlog once the share reaches w/C, at the latest `fullRateMs` into the burst, so
   * the backlog holds at most `fullRateMs` of writes and is caught up within
   * `fullRateMs` x C / (C - w) (twice `fullRateMs` at half the model's rate); a short burst keeps
   * the least share.
   */
  private share(): number {
    const least = this.options.burstShare ?? BURST_SHARE;
    const age = this.burstSince === undefined ? 0 : Date.now() - this.burstSince;
    return Math.min(1, Math.max(least, age / (this.options.fullRateMs ?? FULL_RATE_MS)));
  }

  /** True while this replica's writes keep coming (the last one less than `quietMs` ago). */
  private inBurst(): boolean {
    return this.burstSince !== undefined && Date.now() - this.lastWrite < (this.options.quietMs ?? QUIET_MS);
  }

  /** Waits `ms`; stop ends the wait at once. */
  private async rest(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.unrest = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.unrest = undefined;
  }
}
