'use strict';
// @ts-check
const fs = require('node:fs');
const path = require('node:path');

const SERVICES = /** @type {const} */ (['gateway', 'identity', 'agent-memory', 'workflow', 'webhook']);
const SETTLE_MS = 20_000;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A process's memory in MB from /proc: `rss` counts every resident page, `pss` divides each shared
 * page (the node binary's text, about 34 MB, is shared by every Node process on a machine) among
 * the processes that map it, and `private` counts only the pages of this process alone. `file` is
 * the part of `rss` mapped from files (the node binary and shared libraries: 43-44 MB for each
 * service, 34 MB for a bare `node`), `anon` the rest (V8's heap, malloc, stacks): what code and
 * V8 settings can move (docs/performance.md, "Idle memory: the floor").
 */
function memoryMb(/** @type {number} */ pid) {
  const fields = Object.fromEntries(
    fs
      .readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
      .split('\n')
      .map((line) => line.match(/^(\w+):\s+(\d+) kB/))
      .filter((m) => m !== null)
      .map((m) => [m[1], Number(m[2])]),
  );
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const statusKb = (/** @type {string} */ name) =>
    Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
  const mb = (/** @type {number} */ kb) => Math.round(kb / 1024);
  return {
    rss: mb(fields.Rss),
    pss: mb(fields.Pss),
    private: mb((fields.Private_Clean ?? 0) + (fields.Private_Dirty ?? 0)),
    file: mb(statusKb('RssFile')),
    anon: mb(statusKb('RssAnon')),
  };
}

/** Memory of each service process, after the platform has been idle for a while. */
async function idleMemory(/** @type {any} */ platform) {
  await sleep(SETTLE_MS);
  return Object.fromEntries(SERVICES.map((name) => [name, memoryMb(platform.service(name).pid)]));
}

/**
 * The five Node processes' resident memory at idle (issue 16: at most 400 MB together, not counting
 * the embedding model). Measured with the model on, as the platform runs, and again after
 * agent-memory was restarted without it (`EMBEDDINGS_MODEL_DIR=none`), which gives the model's
 * share; agent-memory is then restarted with the model again for the scenarios after this one.
 */
module.exports = {
  id: 'idle-rss',
  title: 'idle memory of the five Node processes',
  target: 'at most 400 MB together without the embedding model',
  async run(/** @type {any} */ ctx) {
    const withModel = await idleMemory(ctx.platform);
    const memory = ctx.platform.service('agent-memory');
    // The platform's own setting, or agent-memory's default (the model fetched by `npm start`).
    const modelDir = memory.env?.EMBEDDINGS_MODEL_DIR ?? require('../../deploy/local/model.js').MODEL_DIR;
    await memory.stop();
    memory.setEnv({ EMBEDDINGS_MODEL_DIR: 'none' });
    await memory.start(120_000);
    const withoutModel = await idleMemory(ctx.platform);
    await memory.stop();
    memory.setEnv({ EMBEDDINGS_MODEL_DIR: modelDir });
    await memory.start(120_000);
    /** @typedef {Record<string, { rss: number; pss: number; private: number; file: number; anon: number }>} Figures */
    const sum = (/** @type {Figures} */ all, /** @type {'rss' | 'pss' | 'private' | 'file' | 'anon'} */ kind) =>
      Object.values(all).reduce((total, one) => total + one[kind], 0);
    const list = (/** @type {Figures} */ all) =>
      SERVICES.map((name) => `${name} ${all[name].rss}/${all[name].pss}`).join(', ');
    const summary = (/** @type {Figures} */ all) =>
      `RSS ${sum(all, 'rss')} MB (mapped files ${sum(all, 'file')}, anonymous ${sum(all, 'anon')}), PSS ${sum(all, 'pss')} MB, private ${sum(all, 'private')} MB; RSS/PSS each: ${list(all)}`;
    const modelShare = withModel['agent-memory'].private - withoutModel['agent-memory'].private;
    return {
      rows: [
        {
          label: 'idle memory without the model, MB (RSS summed)',
          rps: sum(withoutModel, 'rss'),
          note: `${summary(withoutModel)} (target <= 400 MB together)`,
        },
        {
          label: 'idle memory with the model, MB (RSS summed)',
          rps: sum(withModel, 'rss'),
          note: `${summary(withModel)}; the model adds ${modelShare} MB of private memory to agent-memory (target <= 200 MB)`,
        },
      ],
    };
  },
};
