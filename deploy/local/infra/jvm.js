// @ts-check
'use strict';
/**
 * Process control of the JVM children: spawned with a watchdog, stopped with the parent, awaited until ready.
 */

const childProcess = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { javaBin, sleep, tail } = require('./helpers.js');

/**
 * A JVM child and how it ended (null while it runs).
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null, error?: Error }} ExitInfo
 * @typedef {childProcess.ChildProcess & { exitInfo: ExitInfo | null }} JvmChild
 */

// The collector is each use's own choice (kafka.js, mongo.js).
const COMMON_JVM_OPTS = [
  '-Xshare:auto',
  '-XX:TieredStopAtLevel=1',
  '-XX:-UsePerfData',
  '-Djava.awt.headless=true',
  '-Djava.net.preferIPv4Stack=true',
];

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

module.exports = { COMMON_JVM_OPTS, spawnJvm, waitReady };
