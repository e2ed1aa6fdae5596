// @ts-check
'use strict';
/**
 * Samples every process of a platform every interval: CPU (share of one core over the interval,
 * from /proc/<pid>/stat) and RSS (/proc/<pid>/status), and what the services' /metrics offer that
 * a soak watches: the embedding backlog, calls shed and in flight, and per-collection query
 * counts (any counter with a `collection` label whose name starts with `mongo`).
 */
const fs = require('node:fs');
const os = require('node:os');

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/** @param {number} pid */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/** @param {number} pid */
function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : undefined;
}

/**
 * The figures a soak reads from one /metrics text.
 * @param {string} text
 */
function readMetrics(text) {
  /**
   * `shedBy`: the calls shed so far by where: the counter's name without `_shed_total`, and its
   * target when it has one (`gateway_backend agent-memory`, `agent_memory_queries`).
   * @type {{ backlog?: number, writeDemand?: number, shed: number, shedBy: Record<string, number>, inFlight: number, queries: Record<string, number> }}
   */
  const out = { shed: 0, shedBy: {}, inFlight: 0, queries: {} };
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (!match) continue;
    const [, name, labels = '', raw] = match;
    const value = Number(raw);
    if (name === 'agent_memory_embedding_backlog') out.backlog = (out.backlog ?? 0) + value;
    else if (name === 'agent_memory_embedding_write_demand') out.writeDemand = value;
    else if (name.endsWith('_shed_total')) {
      out.shed += value;
      const target = /target="([^"]*)"/.exec(labels)?.[1];
      const where = name.slice(0, -'_shed_total'.length) + (target ? ` ${target}` : '');
      out.shedBy[where] = (out.shedBy[where] ?? 0) + value;
    } else if (name.endsWith('_in_flight')) out.inFlight += value;
    else if (name.startsWith('mongo')) {
      const collection = /collection="([^"]*)"/.exec(labels)?.[1];
      if (collection) out.queries[collection] = (out.queries[collection] ?? 0) + value;
    }
  }
  return out;
}

/**
 * @param {{
 *   processes: Array<{ name: string, pid: number | undefined, metricsPort?: number }>,
 *   hostSpeed?: { take(): number | undefined },
 * }} options
 */
function createSampler({ processes, hostSpeed }) {
  /** @type {Map<string, { at: number, cpu: number }>} */
  const last = new Map();
  /** @type {Map<string, Record<string, number>>} */
  const lastQueries = new Map();

  /** One sample of every process: CPU since the last sample, RSS now, and its metrics. */
  async function sample() {
    const at = Date.now();
    /** @type {Record<string, any>} */
    const figures = {};
    for (const proc of processes) {
      if (!proc.pid) continue;
      /** @type {Record<string, any>} */
      const row = {};
      try {
        const cpu = cpuSeconds(proc.pid);
        const before = last.get(proc.name);
        if (before) row.cpu = Math.round((100 * (cpu - before.cpu)) / ((at - before.at) / 1000));
        last.set(proc.name, { at, cpu });
        row.rssMb = rssMb(proc.pid);
      } catch {
        row.gone = true;
      }
      if (proc.metricsPort) {
        try {
          const text = await (
            await fetch(`http://127.0.0.1:${proc.metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) })
          ).text();
          const metrics = readMetrics(text);
          row.shed = metrics.shed;
          row.shedBy = metrics.shedBy;
          row.inFlight = metrics.inFlight;
          if (metrics.backlog !== undefined) row.backlog = metrics.backlog;
          if (metrics.writeDemand !== undefined) row.writeDemand = metrics.writeDemand;
          const previous = lastQueries.get(proc.name);
          // Queries per collection since the last sample.
          if (previous && Object.keys(metrics.queries).length > 0) {
            row.queries = Object.fromEntries(
              Object.entries(metrics.queries).map(([c, n]) => [c, n - (previous[c] ?? 0)]),
            );
          }
          lastQueries.set(proc.name, metrics.queries);
        } catch {
          row.metrics = 'unavailable';
        }
      }
      figures[proc.name] = row;
    }
    // The machine's load (runnable processes, 1-minute mean): others' work shows up here; and
    // its speed (bench/soak/host-speed.js): a slower CPU shows up there.
    return { at, loadAverage: Number(os.loadavg()[0].toFixed(1)), hostMs: hostSpeed?.take(), processes: figures };
  }

  return { sample };
}

module.exports = { createSampler, readMetrics };
