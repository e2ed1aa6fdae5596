// @ts-check
'use strict';
/**
 * The host's speed during a soak: a child process does the same small piece of arithmetic every
 * few seconds and reports the CPU time it took. CPU time, not wall time: waiting for a core (a
 * busy machine) does not count, a slower core (a shared host's neighbours, its clock) does. Runs
 * of the same code on this kind of machine differ widely; this says whether the machine itself
 * was slower in one of them. About 20 ms of one core on the development machine when it is quiet.
 */
const childProcess = require('node:child_process');
const { percentile } = require('./stats');

const PROBE = `
const a = new Float64Array(1 << 16);
function work() {
  let x = 0;
  for (let r = 0; r < 300; r++)
    for (let i = 0; i < a.length; i++) { a[i] = a[i] * 0.5 + i; x += a[(i * 7919) & 65535]; }
  return x;
}
for (let i = 0; i < 5; i++) work();
// The soak gone (its end of the pipe closed): stop too, at the next reading.
process.stdout.on('error', () => process.exit(0));
setInterval(() => {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  process.stdout.write(((used.user + used.system) / 1000).toFixed(1) + '\\n');
}, Number(process.argv[1]));
`;

/**
 * Starts the probe, measuring every `everyMs`; `take()` answers the median of the readings since
 * the last call (undefined when none came).
 * @param {number} everyMs
 */
function startHostSpeed(everyMs) {
  const child = childProcess.spawn(process.execPath, ['-e', PROBE, String(everyMs)], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  /** @type {number[]} */
  let readings = [];
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line) readings.push(Number(line));
  });
  return {
    take() {
      const sorted = readings.sort((x, y) => x - y);
      readings = [];
      return percentile(sorted, 50);
    },
    stop() {
      child.kill();
    },
  };
}

module.exports = { startHostSpeed };
