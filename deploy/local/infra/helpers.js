// @ts-check
'use strict';
/**
 * Small helpers of the local infrastructure: logging, files, child commands, free ports.
 */

const childProcess = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

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

module.exports = { sleep, log, sha256, readIfExists, tail, splitOpts, javaBin, javacBin, run, freePort, portIsFree };
