// @ts-check
'use strict';
/**
 * The MongoDB stand-in: mongo-java-server, probed with an isMaster handshake.
 */

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { fetchArtifacts } = require('./artifacts.js');
const { freePort, splitOpts } = require('./helpers.js');
const { COMMON_JVM_OPTS, spawnJvm, waitReady } = require('./jvm.js');
const { CLASSES_DIR, COMPONENTS } = require('./paths.js');

const DEFAULT_MONGO_SERVER_VERSION = '4.4'; // maxWireVersion 9: minimum accepted by the mongodb 7.x driver
// The stand-in keeps every document on the heap (in-memory mode): room for benchmark data sets.
// What it stores lives until the process ends, so the collector is set for that: the heap has its
// full size from the start (growing it cost a full collection each time, up to 0.7 s with the
// benchmark's data), documents move to the old generation at their first young collection instead
// of being copied between survivor spaces, and a small young generation keeps each pause to tens
// of milliseconds (with the default sizing, young pauses reached 300 ms under benchmark load).
const MEMORY_JVM_OPTS = ['-XX:+UseSerialGC', '-Xms1g', '-Xmx1g', '-Xmn96m', '-XX:MaxTenuringThreshold=0', '-Xss512k'];
// On disk (npm start) the documents live in H2's file and its page cache (MongoLauncher, 256 MB
// of the heap), and the process runs for hours. Evicted cache pages and other data that outlive
// a young collection die in the old generation, so the old generation fills steadily: the serial
// collector then stopped everything for a full collection of 0.4-0.7 s every few minutes (every
// kind's p99 rose together in those minutes); G1 marks concurrently and reclaims the old
// generation a few regions at a time, in pauses of tens of milliseconds. G1's adaptive start of
// marking learnt, from a young generation of 600 MB, to mark at 150 MB of old generation, below
// what H2's page cache alone keeps live: after 15 minutes it marked without pause (4-22 cycles
// a minute), so marking starts at a fixed half of the heap. The full JIT (C2) is worth its
// warm-up (COMMON_JVM_OPTS stops at C1 for start-up).
const DISK_JVM_OPTS = [
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=50',
  '-XX:-G1UseAdaptiveIHOP',
  '-XX:InitiatingHeapOccupancyPercent=50',
  '-Xms1g',
  '-Xmx1g',
  '-Xss512k',
  '-XX:TieredStopAtLevel=4',
];

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
    jvmOpts: [
      ...COMMON_JVM_OPTS,
      ...(dataDir ? DISK_JVM_OPTS : MEMORY_JVM_OPTS),
      ...splitOpts(process.env.LOCALINFRA_MONGO_JVM_OPTS),
      ...jvmOpts,
    ],
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

module.exports = { startMongo };
