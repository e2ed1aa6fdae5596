import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './paths.js';

export type ServiceName = 'identity' | 'agent-memory' | 'workflow' | 'webhook' | 'gateway';

export interface ReadyLine {
  event: 'ready';
  grpc_port?: number;
  http_port?: number;
  metrics_port?: number;
}

/**
 * One real service process (`node services/<name>/dist/main.js`), its output in a log file.
 * `start` resolves once the process logs its `ready` line; `stop` is a graceful SIGTERM,
 * `kill` a crash (SIGKILL).
 */
export class ServiceProcess {
  private child?: ChildProcess;
  private exited?: Promise<number | null>;
  ready?: ReadyLine;

  constructor(
    readonly name: ServiceName,
    private env: NodeJS.ProcessEnv,
    readonly logFile: string,
    /** Also receives every output line (`npm start` shows them on the console). */
    private readonly output?: (line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Another process of this service with this one's environment (the same databases, topic and
   * backends) and ports of its own; `extra` adds to or overrides that environment. Start it, and
   * stop it in afterAll.
   */
  replica(logFile: string, extra: NodeJS.ProcessEnv = {}): ServiceProcess {
    return new ServiceProcess(
      this.name,
      { ...this.env, PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', ...extra },
      logFile,
    );
  }

  setEnv(extra: NodeJS.ProcessEnv): void {
    this.env = { ...this.env, ...extra };
  }

  /** AP_SERVICE_START_TIMEOUT_MS lengthens the wait for a service's ready line on a loaded machine. */
  async start(timeoutMs = Number(process.env.AP_SERVICE_START_TIMEOUT_MS || 30_000)): Promise<ReadyLine> {
    const entry = path.join(REPO_ROOT, 'services', this.name, 'dist', 'main.js');
    const log: WriteStream = createWriteStream(this.logFile, { flags: 'a' });
    // AP_SERVICE_NODE_ARGS adds Node options to every service, e.g. `--cpu-prof` to profile a bench.
    const nodeArgs = (process.env.AP_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, entry], {
      cwd: REPO_ROOT,
      env: { ...this.env, EXIT_WITH_PARENT: 'true' },
      // stdin stays open: the service exits when it closes, so no process outlives the test run.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      log.write(`${line}\n`);
      this.output?.(line);
    });
    const lines = createInterface({ input: child.stdout! });
    this.ready = await new Promise<ReadyLine>((resolve, reject) => {
      const timer = setTimeout(() => reject(this.failure(`not ready after ${timeoutMs} ms`)), timeoutMs);
      lines.on('line', (line) => {
        log.write(`${line}\n`);
        this.output?.(line);
        if (!line.includes('"ready"')) return;
        try {
          const parsed = JSON.parse(line) as Partial<ReadyLine>;
          if (parsed.event === 'ready') {
            clearTimeout(timer);
            resolve(parsed as ReadyLine);
          }
        } catch {
          // not a JSON line
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(this.failure(`exited with code ${code} before it was ready`));
      });
    });
    return this.ready;
  }

  /** Graceful stop (SIGTERM), then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Sends a signal: SIGSTOP and SIGCONT make a process that hangs and comes back (lost answers). */
  signal(name: NodeJS.Signals): void {
    this.child?.kill(name);
  }

  /** A crash: SIGKILL, no chance to clean up. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await this.exited;
  }

  private failure(reason: string): Error {
    let tail = '';
    try {
      tail = readFileSync(this.logFile, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      // no log yet
    }
    return new Error(`${this.name} ${reason}; log ${this.logFile}:\n${tail}`);
  }
}
