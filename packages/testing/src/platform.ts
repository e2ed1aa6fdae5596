import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceProcess, type ServiceName } from './service-process.js';

export interface PlatformOptions {
  /** Extra environment for every process. */
  env?: NodeJS.ProcessEnv;
  /** Extra environment per process. */
  serviceEnv?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
  /** Which backends to start (all four by default); the gateway always starts. */
  services?: Exclude<ServiceName, 'gateway'>[];
  /** Overrides the infrastructure started by the global setup (e.g. a private Kafka). */
  mongoUri?: string;
  kafkaBrokers?: string[];
}

/**
 * As deploy/ runs agent-memory: glibc returns freed memory of the embedding model's thread to the
 * system (docs/configuration.md, "Memory of agent-memory").
 */
const AGENT_MEMORY_ENV = { MALLOC_TRIM_THRESHOLD_: '131072' };

/**
 * As deploy/ runs every process: glibc's malloc with two arenas, not one for each thread that
 * allocates (docs/configuration.md, "Malloc arenas"). A value the caller set is kept.
 */
export function serviceMallocArenas(inherited = process.env.MALLOC_ARENA_MAX): string {
  return inherited || '2';
}

const BACKENDS = [
  { name: 'identity', database: 'identity', addrVar: 'IDENTITY_GRPC_ADDR' },
  { name: 'agent-memory', database: 'agent_memory', addrVar: 'AGENT_MEMORY_GRPC_ADDR', env: AGENT_MEMORY_ENV },
  { name: 'workflow', database: 'workflow', addrVar: 'WORKFLOW_GRPC_ADDR' },
  { name: 'webhook', database: 'webhook', addrVar: 'WEBHOOK_GRPC_ADDR' },
] as const;

/**
 * A whole platform of real processes on free ports for one test suite: its own databases
 * (`<name>_<suffix>`) on the shared MongoDB-compatible server, its own Kafka topic and consumer
 * group, so suites running in parallel never see each other's data or events.
 */
export class Platform {
  readonly suffix = randomBytes(4).toString('hex');
  readonly logDir: string;
  readonly topic: string;
  /** The platform's DATA_ENCRYPTION_KEY keyring (one key, id `test`), fresh for every platform. */
  readonly dataEncryptionKey = `test:${randomBytes(32).toString('base64')}`;
  readonly processes = new Map<ServiceName, ServiceProcess>();
  url = '';

  constructor(private readonly options: PlatformOptions = {}) {
    const base = process.env.AP_TEST_WORKDIR ?? mkdtempSync(path.join(tmpdir(), 'agentplatform-'));
    this.logDir = path.join(base, `platform-${this.suffix}`);
    mkdirSync(this.logDir, { recursive: true });
    this.topic = `platform.events.${this.suffix}`;
  }

  get mongoUri(): string {
    const uri = this.options.mongoUri ?? process.env.MONGODB_URI;
    if (!uri) throw new Error('MONGODB_URI is not set: run the tests through jest (global setup starts it)');
    return uri;
  }

  get kafkaBrokers(): string[] {
    return this.options.kafkaBrokers ?? (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
  }

  /** The database name a service uses in this platform. */
  database(service: Exclude<ServiceName, 'gateway'>): string {
    const backend = BACKENDS.find((b) => b.name === service)!;
    return `${backend.database}_${this.suffix}`;
  }

  /** The gateway's own database (rate-limit counters, idempotency records) in this platform. */
  get gatewayDatabase(): string {
    return `gateway_${this.suffix}`;
  }

  service(name: ServiceName): ServiceProcess {
    const found = this.processes.get(name);
    if (!found) throw new Error(`${name} is not part of this platform`);
    return found;
  }

  async start(): Promise<this> {
    try {
      return await this.startAll();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  private async startAll(): Promise<this> {
    const common: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
      MONGODB_URI: this.mongoUri,
      KAFKA_BROKERS: this.kafkaBrokers.join(','),
      KAFKA_TOPIC: this.topic,
      KAFKA_TOPIC_PARTITIONS: '3',
      KAFKA_CONSUMER_GROUP: `webhook-dispatcher-${this.suffix}`,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      PORT: '0',
      ALLOW_PRIVATE_URLS: 'true',
      // New tenants start unlimited so suites that poll are not rate limited; rate-limit suites pass 'free'.
      DEFAULT_PLAN: 'enterprise',
      DATA_ENCRYPTION_KEY: this.dataEncryptionKey,
      // Tenants buy their own credits, as `npm start` and compose allow (docs/design.md section 5);
      // a suite, or whoever runs `npm start`, may turn it off.
      BILLING_SELF_SERVICE: process.env.BILLING_SELF_SERVICE ?? 'true',
      MALLOC_ARENA_MAX: serviceMallocArenas(process.env.MALLOC_ARENA_MAX),
      ...this.options.env,
    };
    const wanted = BACKENDS.filter((b) => !this.options.services || this.options.services.includes(b.name));
    // Ports are chosen up front so backends that call each other (agent-memory -> identity,
    // workflow -> agent-memory) know every address while all start in parallel.
    const addresses: NodeJS.ProcessEnv = {};
    const ports = new Map<string, number>();
    for (const backend of wanted) {
      const port = await freePort();
      ports.set(backend.name, port);
      addresses[backend.addrVar] = `127.0.0.1:${port}`;
    }
    await Promise.all(
      wanted.map(async (backend) => {
        const proc = new ServiceProcess(
          backend.name,
          {
            ...common,
            ...addresses,
            GRPC_PORT: String(ports.get(backend.name)),
            MONGODB_DATABASE: this.database(backend.name),
            ...('env' in backend ? backend.env : {}),
            ...this.options.serviceEnv?.[backend.name],
          },
          path.join(this.logDir, `${backend.name}.log`),
        );
        this.processes.set(backend.name, proc);
        const ready = await proc.start();
        // A restarted service must come back on the same port, so pin it now.
        proc.setEnv({ GRPC_PORT: String(ready.grpc_port) });
        addresses[backend.addrVar] = `127.0.0.1:${ready.grpc_port}`;
      }),
    );
    const gateway = new ServiceProcess(
      'gateway',
      { ...common, ...addresses, MONGODB_DATABASE: this.gatewayDatabase, ...this.options.serviceEnv?.gateway },
      path.join(this.logDir, 'gateway.log'),
    );
    this.processes.set('gateway', gateway);
    const ready = await gateway.start();
    gateway.setEnv({ PORT: String(ready.http_port) });
    this.url = `http://127.0.0.1:${ready.http_port}`;
    return this;
  }

  async stop(): Promise<void> {
    const gateway = this.processes.get('gateway');
    await gateway?.stop();
    await Promise.all([...this.processes.values()].filter((p) => p !== gateway).map((p) => p.stop()));
  }
}

/** Starts a platform for a suite; call `stop()` in afterAll. */
export function startPlatform(options?: PlatformOptions): Promise<Platform> {
  return new Platform(options).start();
}

/**
 * A TCP port free right now on the loopback interface, for a service to listen on a moment later.
 * It is drawn below Linux's ephemeral range (32768-60999 by default): a port the kernel handed out
 * (listen(0)) is also where it puts outgoing connections, and one of them (to Kafka, MongoDB, a
 * parallel suite's service) took such a port between this check and the service's listen in CI.
 */
async function freePort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port found between 20000 and 32000');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
