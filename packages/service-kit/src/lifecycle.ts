import { abandonStdout, flushLogs, type Logger } from './logger.js';

type Closer = { name: string; close: () => Promise<void> | void };

/**
 * Graceful shutdown: on SIGTERM or SIGINT, run the registered closers in reverse order of
 * registration (stop accepting first, drain, then close connections), bounded by a timeout.
 */
export class Lifecycle {
  private readonly closers: Closer[] = [];
  private stopping?: Promise<void>;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  /** Registers something to close on shutdown. Later registrations close first. */
  onShutdown(name: string, close: Closer['close']): void {
    this.closers.push({ name, close });
  }

  /**
   * Installs the signal handlers; the process exits once everything is closed. With
   * `exitWithParent`, the end of stdin counts as a stop signal too: a supervisor (`npm start`, the
   * test harness) keeps the pipe open, so its death, even by SIGKILL, stops the service.
   */
  handleSignals(exitWithParent = false): void {
    const onSignal = (signal: string) => {
      this.logger.info({ signal }, 'shutting down');
      void this.shutdown().then(
        () => flushLogs(this.logger).then(() => process.exit(0)),
        () => flushLogs(this.logger).then(() => process.exit(1)),
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    if (exitWithParent) {
      process.stdin.once('end', () => {
        abandonStdout();
        onSignal('stdin closed');
      });
      process.stdin.resume();
    }
  }

  shutdown(): Promise<void> {
    this.stopping ??= this.run();
    return this.stopping;
  }

  private async run(): Promise<void> {
    const timer = setTimeout(() => {
      this.logger.error({ timeout_ms: this.timeoutMs }, 'shutdown timed out; exiting');
      void flushLogs(this.logger, 200).then(() => process.exit(1));
    }, this.timeoutMs);
    timer.unref();
    for (const closer of [...this.closers].reverse()) {
      try {
        await closer.close();
      } catch (error) {
        this.logger.warn({ err: error, closer: closer.name }, 'error while closing');
      }
    }
    clearTimeout(timer);
    this.logger.info('stopped');
  }
}
