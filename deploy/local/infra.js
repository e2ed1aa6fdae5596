#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Local infrastructure for the Agent Platform: a real Apache Kafka broker (KRaft, single node) and
 * mongo-java-server (a MongoDB wire-protocol stand-in on H2), both JVMs fetched from Maven Central.
 * No Docker, no native MongoDB/Kafka install. See docs/local-infrastructure.md.
 *
 * Library (CommonJS, no npm deps; `kafkajs` is required lazily for the Kafka readiness probe):
 *   fetchArtifacts({ quiet })                                   -> Promise<void>
 *   startMongo({ port, dataDir, logFile, serverVersion, oplog, timeoutMs, jvmOpts })
 *       -> Promise<{ uri, port, stop(), process, logFile }>
 *   startKafka({ port, dataDir, logFile, partitions, controllerPort, timeoutMs, jvmOpts })
 *       -> Promise<{ brokers, port, stop(), process, logFile, dataDir }>
 *
 * CLI:
 *   node deploy/local/infra.js fetch
 *   node deploy/local/infra.js up [--mongo-port 27017] [--kafka-port 9092] [--data-dir deploy/local/.data]
 *                                 [--partitions 3]
 */

const childProcess = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

/**
 * A JVM child and how it ended (null while it runs).
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null, error?: Error }} ExitInfo
 * @typedef {childProcess.ChildProcess & { exitInfo: ExitInfo | null }} JvmChild
 */

const HERE = __dirname;
const REPO_ROOT = path.resolve(HERE, '..', '..');
const CACHE = process.env.LOCALINFRA_CACHE_DIR
  ? path.resolve(process.env.LOCALINFRA_CACHE_DIR)
  : path.join(HERE, '.cache');
const M2_REPO = path.join(CACHE, 'm2');
const CLASSES_DIR = path.join(CACHE, 'classes');
const JAVA_SRC_DIR = path.join(HERE, 'java');
const COMPONENTS = {
  kafka: { pom: path.join(HERE, 'maven', 'kafka', 'pom.xml'), libs: path.join(CACHE, 'kafka', 'libs') },
  mongo: { pom: path.join(HERE, 'maven', 'mongo', 'pom.xml'), libs: path.join(CACHE, 'mongo', 'libs') },
};

const KAFKA_PROBE_TOPIC = '__localinfra_probe';
const DEFAULT_MONGO_SERVER_VERSION = '4.4'; // maxWireVersion 9: minimum accepted by the mongodb 7.x driver
const COMMON_JVM_OPTS = [
  '-Xshare:auto',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:-UsePerfData',
  '-Djava.awt.headless=true',
  '-Djava.net.preferIPv4Stack=true',
];
// The stand-in keeps every document on the heap (in-memory mode): room for benchmark data sets.
// What it stores lives until the process ends, so the collector is set for that: the heap has its
// full size from the start (growing it cost a full collection each time, up to 0.7 s with the
// benchmark's data), documents move to the old generation at their first young collection instead
// of being copied between survivor spaces, and a small young generation keeps each pause to tens
// of milliseconds (with the default sizing, young pauses reached 300 ms under benchmark load).
const MONGO_JVM_OPTS = ['-Xms1g', '-Xmx1g', '-Xmn96m', '-XX:MaxTenuringThreshold=0', '-Xss512k'];
const KAFKA_JVM_OPTS = ['-Xms128m', '-Xmx512m'];

// ---------------------------------------------------------------------------------------------
// small helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function log(quiet, ...args) {
  if (!quiet) console.error('[local-infra]', ...args);
}

function sha256(...parts) {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

function readIfExists(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function tail(file, maxLines = 40) {
  const text = readIfExists(file);
  if (text == null) return `(no log file at ${file})`;
  return text.split('\n').slice(-maxLines).join('\n');
}

function splitOpts(value) {
  return value ? value.split(/\s+/).filter(Boolean) : [];
}

function javaBin() {
  if (process.env.LOCALINFRA_JAVA) return process.env.LOCALINFRA_JAVA;
  if (process.env.JAVA_HOME) return path.join(process.env.JAVA_HOME, 'bin', 'java');
  return 'java';
}

function javacBin() {
  if (process.env.JAVA_HOME) return path.join(process.env.JAVA_HOME, 'bin', 'javac');
  return 'javac';
}

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ quiet?: boolean, cwd?: string }} [options]
 */
function run(cmd, args, { quiet, cwd } = {}) {
  return new Promise((resolve, reject) => {
    let out = '';
    const child = childProcess.spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk) => {
      out += chunk;
      if (out.length > 200000) out = out.slice(-100000);
      if (!quiet) process.stderr.write(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (err) => reject(new Error(`cannot run ${cmd}: ${err.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}\n${out.split('\n').slice(-40).join('\n')}`));
    });
  });
}

/** A free TCP port on 127.0.0.1 (bind to 0, read the port, release it). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

function portIsFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

// ---------------------------------------------------------------------------------------------
// fetching (Maven) and compiling the launcher

async function withLock(lockDir, fn) {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  const deadline = Date.now() + 15 * 60 * 1000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
      // Stale lock (a fetch that died): older than 15 minutes.
      try {
        if (Date.now() - fs.statSync(lockDir).mtimeMs > 15 * 60 * 1000)
          fs.rmSync(lockDir, { recursive: true, force: true });
      } catch {
        /* raced with its removal */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockDir}`);
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

function componentKey(name) {
  return sha256(fs.readFileSync(COMPONENTS[name].pom));
}

function classesKey() {
  const files = fs
    .readdirSync(path.join(JAVA_SRC_DIR, 'localinfra'))
    .filter((f) => f.endsWith('.java'))
    .sort();
  return sha256(
    componentKey('mongo'),
    ...files.map((f) => f + '\0' + fs.readFileSync(path.join(JAVA_SRC_DIR, 'localinfra', f), 'utf8')),
  );
}

function markerFile(dir) {
  return path.join(dir, '.localinfra-key');
}

function upToDate(dir, key) {
  return readIfExists(markerFile(dir)) === key;
}

function artifactsReady() {
  return (
    upToDate(COMPONENTS.kafka.libs, componentKey('kafka')) &&
    upToDate(COMPONENTS.mongo.libs, componentKey('mongo')) &&
    upToDate(CLASSES_DIR, classesKey())
  );
}

let fetchPromise = null;

/**
 * Download the Kafka and mongo-java-server jars (Maven Central) into deploy/local/.cache and compile
 * the Java launchers. Runs Maven/javac only when a pom or a launcher source changed since the last
 * successful run (marker files keyed by content hashes), so a warm call takes milliseconds.
 */
function fetchArtifacts({ quiet = false } = {}) {
  if (artifactsReady()) return Promise.resolve();
  if (!fetchPromise) {
    fetchPromise = withLock(path.join(CACHE, '.fetch.lock'), () => doFetch(quiet)).finally(() => {
      fetchPromise = null;
    });
  }
  return fetchPromise;
}

async function doFetch(quiet) {
  const mvn = process.env.LOCALINFRA_MVN || 'mvn';
  for (const name of Object.keys(COMPONENTS)) {
    const { pom, libs } = COMPONENTS[name];
    const key = componentKey(name);
    if (upToDate(libs, key)) continue;
    log(quiet, `fetching ${name} jars with Maven (${path.relative(REPO_ROOT, pom)}) ...`);
    const t0 = Date.now();
    fs.rmSync(libs, { recursive: true, force: true });
    const args = [
      '-B',
      '--no-transfer-progress',
      '-Dstyle.color=never',
      '-f',
      pom,
      `-Dmaven.repo.local=${M2_REPO}`,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${libs}`,
    ];
    // Maven's own output is only shown (its tail) when it fails.
    await run(mvn, ['-q', ...args], { quiet: true, cwd: path.dirname(pom) });
    fs.writeFileSync(markerFile(libs), key);
    log(quiet, `${name} jars ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  }
  const key = classesKey();
  if (!upToDate(CLASSES_DIR, key)) {
    log(quiet, 'compiling launchers (deploy/local/java) ...');
    fs.rmSync(CLASSES_DIR, { recursive: true, force: true });
    fs.mkdirSync(CLASSES_DIR, { recursive: true });
    const sources = fs
      .readdirSync(path.join(JAVA_SRC_DIR, 'localinfra'))
      .filter((f) => f.endsWith('.java'))
      .map((f) => path.join(JAVA_SRC_DIR, 'localinfra', f));
    await run(
      javacBin(),
      ['-nowarn', '--release', '17', '-d', CLASSES_DIR, '-cp', path.join(COMPONENTS.mongo.libs, '*'), ...sources],
      { quiet },
    );
    fs.writeFileSync(markerFile(CLASSES_DIR), key);
  }
}

// ---------------------------------------------------------------------------------------------
// process management

const liveChildren = new Set();
let exitHookInstalled = false;

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Normal exit: be explicit. Abnormal death (SIGKILL): the JVM's stdin watchdog sees EOF.
  process.on('exit', () => {
    for (const child of liveChildren) {
      try {
        child.kill('SIGTERM');
      } catch {
        /* already gone */
      }
    }
  });
}

function spawnJvm({ name, jvmOpts, classpath, mainClass, args, logFile }) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `\n[local-infra] ${new Date().toISOString()} starting ${name}\n`);
  /** @type {JvmChild} */
  let child;
  try {
    child = /** @type {JvmChild} */ (
      childProcess.spawn(javaBin(), [...jvmOpts, '-cp', classpath, 'localinfra.Watchdog', mainClass, ...args], {
        // stdin stays an open pipe for the JVM's lifetime: EOF on it means "parent died".
        stdio: ['pipe', fd, fd],
        env: { ...process.env, LOCALINFRA_NO_WATCHDOG: '' },
      })
    );
  } finally {
    fs.closeSync(fd);
  }
  // A pipe (stdio[0] is 'pipe'), so a socket: never null, and it can be unref'd.
  const stdin = /** @type {net.Socket} */ (child.stdin);
  stdin.on('error', () => {}); // EPIPE if the JVM dies first
  // Do not keep the Node event loop alive just for the JVM: a test file that forgets stop() still
  // exits, and then the 'exit' hook (SIGTERM) and the stdin watchdog (EOF) take the JVM down.
  child.unref();
  if (typeof stdin.unref === 'function') stdin.unref();
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      liveChildren.delete(child);
      resolve({ code, signal });
    });
    child.once('error', (err) => {
      liveChildren.delete(child);
      resolve({ code: null, signal: null, error: err });
    });
  });
  child.exitInfo = null;
  exited.then((info) => {
    child.exitInfo = info;
  });
  liveChildren.add(child);
  installExitHook();

  let stopping = null;
  const stop = ({ timeoutMs = 10000 } = {}) => {
    if (!stopping) {
      stopping = (async () => {
        if (child.exitInfo) return;
        child.kill('SIGTERM');
        let timer;
        const timeout = new Promise((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        });
        const winner = await Promise.race([exited, timeout]);
        clearTimeout(timer);
        if (winner === 'timeout') {
          child.kill('SIGKILL');
          const keepAlive = setInterval(() => {}, 1000);
          await exited;
          clearInterval(keepAlive);
        }
        try {
          stdin.destroy();
        } catch {
          /* ignore */
        }
      })();
    }
    return stopping;
  };
  return { child, exited, stop };
}

async function waitReady({ name, child, logFile, timeoutMs, probe }) {
  const deadline = Date.now() + timeoutMs;
  /** @type {unknown} */
  let lastError = null;
  for (;;) {
    if (child.exitInfo) {
      const { code, signal, error } = child.exitInfo;
      throw new Error(
        `${name} exited before it was ready (code ${code}, signal ${signal}${error ? `, ${error.message}` : ''}).` +
          ` Log ${logFile}:\n${tail(logFile)}`,
      );
    }
    try {
      if (await probe()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${name} not ready after ${timeoutMs} ms${lastError ? ` (last probe error: ${lastError instanceof Error ? lastError.message : String(lastError)})` : ''}.` +
          ` Log ${logFile}:\n${tail(logFile)}`,
      );
    }
    await sleep(150);
  }
}

// ---------------------------------------------------------------------------------------------
// MongoDB stand-in

/**
 * OP_MSG { isMaster: 1, $db: "admin" } over raw TCP; true when the server answers with a handshake
 * reply. (mongo-java-server does not implement the newer `hello` command; drivers fall back to
 * isMaster for the handshake, so that is what is probed.)
 */
function mongoHello(port, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const bson = (() => {
      const parts = [];
      const int32 = (n) => {
        const b = Buffer.alloc(4);
        b.writeInt32LE(n);
        return b;
      };
      const cstr = (s) => Buffer.from(s + '\0', 'utf8');
      parts.push(Buffer.from([0x10]), cstr('isMaster'), int32(1));
      parts.push(Buffer.from([0x02]), cstr('$db'), int32(6), cstr('admin'));
      parts.push(Buffer.from([0x00]));
      const body = Buffer.concat(parts);
      return Buffer.concat([int32(body.length + 4), body]);
    })();
    const header = Buffer.alloc(16);
    const total = 16 + 4 + 1 + bson.length;
    header.writeInt32LE(total, 0);
    header.writeInt32LE(1, 4); // requestID
    header.writeInt32LE(0, 8); // responseTo
    header.writeInt32LE(2013, 12); // OP_MSG
    const msg = Buffer.concat([header, Buffer.alloc(4), Buffer.from([0]), bson]);

    const sock = net.connect({ host: '127.0.0.1', port });
    let buf = Buffer.alloc(0);
    const done = (err, ok) => {
      sock.destroy();
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(ok);
    };
    const timer = setTimeout(() => done(new Error('isMaster timed out')), timeoutMs);
    sock.on('connect', () => sock.write(msg));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 16 && buf.length >= buf.readInt32LE(0)) {
        const opCode = buf.readInt32LE(12);
        const text = buf.toString('latin1');
        done(null, opCode === 2013 && text.includes('ok') && text.includes('maxWireVersion'));
      }
    });
    sock.on('error', (err) => done(err));
  });
}

/**
 * Start mongo-java-server on 127.0.0.1.
 * @param {object} [opts]
 * @param {number} [opts.port=0]        0 = a free port
 * @param {string|null} [opts.dataDir=null]  directory for the H2 file (mongo-java-server.mv); null = in-memory
 * @param {string} [opts.logFile]       default <dataDir>/mongo.log, or a file in os.tmpdir() when in-memory
 * @param {string} [opts.serverVersion='4.4']  version reported to clients (3.6 4.0 4.2 4.4 5.0 6.0 7.0 8.0)
 * @param {boolean} [opts.oplog=false]  enable mongo-java-server's oplog (for change streams)
 * @param {number} [opts.timeoutMs=30000]
 * @param {string[]} [opts.jvmOpts]     extra JVM options (also env LOCALINFRA_MONGO_JVM_OPTS)
 */
async function startMongo({
  port = 0,
  dataDir = null,
  logFile,
  serverVersion = DEFAULT_MONGO_SERVER_VERSION,
  oplog = false,
  timeoutMs = 30000,
  jvmOpts = [],
} = {}) {
  await fetchArtifacts({ quiet: true });
  const actualPort = port || (await freePort());
  let dataArg = ':memory:';
  if (dataDir) {
    dataDir = path.resolve(dataDir);
    fs.mkdirSync(dataDir, { recursive: true });
    dataArg = path.join(dataDir, 'mongo-java-server.mv');
  }
  logFile = path.resolve(
    logFile ||
      (dataDir ? path.join(dataDir, 'mongo.log') : path.join(os.tmpdir(), `localinfra-mongo-${actualPort}.log`)),
  );
  const t0 = Date.now();
  const { child, stop } = spawnJvm({
    name: 'mongo-java-server',
    jvmOpts: [...COMMON_JVM_OPTS, ...MONGO_JVM_OPTS, ...splitOpts(process.env.LOCALINFRA_MONGO_JVM_OPTS), ...jvmOpts],
    classpath: [CLASSES_DIR, path.join(COMPONENTS.mongo.libs, '*')].join(path.delimiter),
    mainClass: 'localinfra.MongoLauncher',
    args: [String(actualPort), dataArg, String(serverVersion), oplog ? 'oplog' : 'no-oplog'],
    logFile,
  });
  try {
    await waitReady({
      name: `mongo-java-server on 127.0.0.1:${actualPort}`,
      child,
      logFile,
      timeoutMs,
      probe: () => mongoHello(actualPort),
    });
  } catch (err) {
    await stop({ timeoutMs: 2000 });
    throw err;
  }
  return {
    uri: `mongodb://127.0.0.1:${actualPort}`,
    port: actualPort,
    stop,
    process: child,
    logFile,
    startupMs: Date.now() - t0,
  };
}

// ---------------------------------------------------------------------------------------------
// Kafka (KRaft, single node)

function resolveKafkajs() {
  for (const base of [process.cwd(), REPO_ROOT, HERE]) {
    try {
      return require(require.resolve('kafkajs', { paths: [base] }));
    } catch {
      /* try the next place */
    }
  }
  return null;
}

async function kafkaProbe(broker, kafkajs, logFile) {
  if (!kafkajs) {
    // No kafkajs available: rely on the broker's own "started" log line plus an open port.
    const text = readIfExists(logFile) || '';
    const idx = text.lastIndexOf('[local-infra]');
    if (!text.slice(idx).includes('Kafka Server started')) return false;
    const [host, port] = broker.split(':');
    return new Promise((resolve) => {
      const s = net.connect({ host, port: Number(port) }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
  }
  const { Kafka, logLevel } = kafkajs;
  const kafka = new Kafka({
    clientId: 'localinfra-probe',
    brokers: [broker],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: KAFKA_PROBE_TOPIC, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
      timeout: 5000,
    });
    const md = await admin.fetchTopicMetadata({ topics: [KAFKA_PROBE_TOPIC] });
    const p = md.topics[0] && md.topics[0].partitions[0];
    return Boolean(p && p.leader >= 0);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

function kafkaServerProperties({ port, controllerPort, logDirs, partitions }) {
  return [
    '# Generated by deploy/local/infra.js at every start; edits are overwritten.',
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    `log.dirs=${logDirs}`,
    `num.partitions=${partitions}`,
    'default.replication.factor=1',
    'min.insync.replicas=1',
    'auto.create.topics.enable=true',
    'delete.topic.enable=true',
    'group.initial.rebalance.delay.ms=0',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    // small machine (2 cores): fewer threads, small cleaner buffer (default 128 MiB of heap)
    'num.network.threads=2',
    'num.io.threads=2',
    'background.threads=2',
    'num.recovery.threads.per.data.dir=1',
    'num.replica.fetchers=1',
    'log.cleaner.threads=1',
    'log.cleaner.dedupe.buffer.size=8388608',
    'log.retention.hours=168',
    // the message limit the deployments set explicitly (packages/events KAFKA_MESSAGE_MAX_BYTES)
    'message.max.bytes=1048576',
    '',
  ].join('\n');
}

function kafkaLog4j2(logFile) {
  const f = logFile.replace(/\\/g, '/');
  return [
    '# Generated by deploy/local/infra.js: WARN and above to the log file, nothing on the console.',
    'status = error',
    'name = localinfra-kafka',
    'appender.file.type = File',
    'appender.file.name = FILE',
    `appender.file.fileName = ${f}`,
    'appender.file.append = true',
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = WARN',
    'rootLogger.appenderRef.file.ref = FILE',
    '# the broker\'s "Kafka Server started" line (readiness fallback when kafkajs is not installed)',
    'logger.started.name = kafka.server.KafkaRaftServer',
    'logger.started.level = INFO',
    '',
  ].join('\n');
}

/**
 * Start a single-node KRaft Kafka broker on 127.0.0.1. Restarting on the same dataDir keeps topics,
 * messages and committed offsets (the cluster id and the controller port are kept in
 * <dataDir>/localinfra-kafka.json).
 * @param {object} opts
 * @param {string} opts.dataDir          required; created if missing (use a temp dir in tests)
 * @param {number} [opts.port=0]         broker port, 0 = a free port
 * @param {string} [opts.logFile]        default <dataDir>/kafka.log
 * @param {number} [opts.partitions=3]   num.partitions for auto-created topics
 * @param {number} [opts.controllerPort] KRaft controller port, default: the one recorded in dataDir, else free
 * @param {number} [opts.timeoutMs=90000]
 * @param {string[]} [opts.jvmOpts]      extra JVM options (also env LOCALINFRA_KAFKA_JVM_OPTS)
 */
async function startKafka({
  port = 0,
  dataDir,
  logFile,
  partitions = 3,
  controllerPort,
  timeoutMs = 90000,
  jvmOpts = [],
}) {
  if (!dataDir) throw new Error('startKafka: dataDir is required (use a temporary directory for tests)');
  await fetchArtifacts({ quiet: true });
  dataDir = path.resolve(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const stateFile = path.join(dataDir, 'localinfra-kafka.json');
  const state = JSON.parse(readIfExists(stateFile) || '{}');
  // Kafka Uuid format (base64url, 22 chars). Like Kafka's Uuid.randomUuid, avoid a leading '-',
  // which the StorageTool's argument parser would read as an option.
  while (!state.clusterId || state.clusterId.startsWith('-'))
    state.clusterId = crypto.randomBytes(16).toString('base64url');
  const actualPort = port || (await freePort());
  let cport = controllerPort || state.controllerPort;
  if (!cport || cport === actualPort || !(await portIsFree(cport))) {
    do cport = await freePort();
    while (cport === actualPort);
  }
  state.controllerPort = cport;
  state.port = actualPort;
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 2) + '\n');

  logFile = path.resolve(logFile || path.join(dataDir, 'kafka.log'));
  const logDirs = path.join(dataDir, 'kraft-combined-logs');
  const propsFile = path.join(dataDir, 'server.properties');
  const log4jFile = path.join(dataDir, 'log4j2.properties');
  fs.writeFileSync(propsFile, kafkaServerProperties({ port: actualPort, controllerPort: cport, logDirs, partitions }));
  fs.writeFileSync(log4jFile, kafkaLog4j2(logFile));

  const t0 = Date.now();
  const { child, stop } = spawnJvm({
    name: 'kafka',
    jvmOpts: [
      ...COMMON_JVM_OPTS,
      ...KAFKA_JVM_OPTS,
      `-Dlog4j2.configurationFile=${log4jFile}`,
      '-Dlog4j2.disable.jmx=true',
      `-Dkafka.logs.dir=${dataDir}`,
      ...splitOpts(process.env.LOCALINFRA_KAFKA_JVM_OPTS),
      ...jvmOpts,
    ],
    classpath: [CLASSES_DIR, path.join(COMPONENTS.kafka.libs, '*')].join(path.delimiter),
    mainClass: 'localinfra.KafkaLauncher',
    args: [propsFile, state.clusterId],
    logFile,
  });
  const broker = `127.0.0.1:${actualPort}`;
  const kafkajs = resolveKafkajs();
  try {
    await waitReady({
      name: `kafka on ${broker}`,
      child,
      logFile,
      timeoutMs,
      probe: () => kafkaProbe(broker, kafkajs, logFile),
    });
  } catch (err) {
    await stop({ timeoutMs: 5000 });
    throw err;
  }
  return {
    brokers: [broker],
    port: actualPort,
    stop,
    process: child,
    logFile,
    dataDir,
    startupMs: Date.now() - t0,
  };
}

// ---------------------------------------------------------------------------------------------
// CLI

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const [k, inline] = a.slice(2).split('=', 2);
    const v = inline !== undefined ? inline : argv[++i];
    if (v === undefined) throw new Error(`missing value for --${k}`);
    opts[k] = v;
  }
  return opts;
}

async function cli(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === 'fetch') {
    const t0 = Date.now();
    await fetchArtifacts({ quiet: false });
    console.log(`artifacts ready in ${path.relative(process.cwd(), CACHE) || CACHE} (${Date.now() - t0} ms)`);
    return;
  }
  if (cmd === 'up') {
    const o = parseArgs(rest);
    const dataDir = path.resolve(o['data-dir'] || path.join(HERE, '.data'));
    const mongoPort = Number(o['mongo-port'] || 27017);
    const kafkaPort = Number(o['kafka-port'] || 9092);
    await fetchArtifacts({ quiet: false });
    const started = [];
    let shuttingDown = false;
    const shutdown = async (code) => {
      if (shuttingDown) return;
      shuttingDown = true;
      console.error('[local-infra] stopping ...');
      await Promise.all(started.map((s) => s.stop()));
      clearInterval(keepAlive);
      process.exit(code);
    };
    const keepAlive = setInterval(() => {}, 60 * 60 * 1000); // the JVM children are unref'd
    process.on('SIGINT', () => shutdown(0));
    process.on('SIGTERM', () => shutdown(0));
    try {
      const [mongo, kafka] = await Promise.all([
        startMongo({ port: mongoPort, dataDir: path.join(dataDir, 'mongo') }).then((m) => (started.push(m), m)),
        startKafka({
          port: kafkaPort,
          dataDir: path.join(dataDir, 'kafka'),
          partitions: Number(o.partitions || 3),
        }).then((k) => (started.push(k), k)),
      ]);
      console.error(
        `[local-infra] mongo-java-server ready in ${mongo.startupMs} ms (log ${mongo.logFile}),` +
          ` kafka ready in ${kafka.startupMs} ms (log ${kafka.logFile}); Ctrl-C to stop`,
      );
      console.log(`MONGODB_URI=${mongo.uri}`);
      console.log(`KAFKA_BROKERS=${kafka.brokers.join(',')}`);
      // Leave if one of them dies on its own.
      const first = await Promise.race(
        [mongo, kafka].map((s) => new Promise((resolve) => s.process.once('exit', () => resolve(s)))),
      );
      if (!shuttingDown) {
        console.error(
          `[local-infra] ${first === mongo ? 'mongo-java-server' : 'kafka'} exited unexpectedly, see ${first.logFile}`,
        );
        await shutdown(1);
      }
    } catch (err) {
      console.error(`[local-infra] ${err instanceof Error ? err.message : String(err)}`);
      await shutdown(1);
    }
    return;
  }
  console.error(
    'usage: node deploy/local/infra.js fetch\n' +
      '       node deploy/local/infra.js up [--mongo-port 27017] [--kafka-port 9092] [--data-dir deploy/local/.data] [--partitions 3]',
  );
  process.exitCode = 2;
}

module.exports = { fetchArtifacts, startMongo, startKafka };

if (require.main === module) {
  cli(process.argv.slice(2)).catch((err) => {
    console.error(`[local-infra] ${err.stack || err.message}`);
    process.exit(1);
  });
}
