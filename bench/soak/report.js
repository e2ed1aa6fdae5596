// @ts-check
'use strict';
/**
 * The soak's result tables and its markdown report (scripts/soak.js): per-minute rows of the
 * latency buckets and the answers by status, per-minute rows of the process samples, and the
 * report that opens with the issue 38 targets (bench/soak/targets.js).
 */
const { percentile, summary } = require('./stats');

/** Per minute: p50/p99 of each kind, of the delivery lag and of all admitted answers, and the answers by status. */
function minuteRows(buckets, statuses) {
  /** @type {Map<string, Record<string, any>>} */
  const rows = new Map();
  for (const { minute, key, values } of buckets.flatMap((b) => b.entries())) {
    const row = rows.get(minute) ?? { minute };
    row[key] = summary(values);
    rows.set(minute, row);
  }
  for (const [minute, byStatus] of statuses) {
    const row = rows.get(minute) ?? { minute };
    row.statuses = byStatus;
    rows.set(minute, row);
  }
  return [...rows.values()];
}

/** Per minute and process: mean CPU (% of a core), peak RSS, peak backlog, queries per collection. */
function processRows(samples) {
  /** @type {Map<string, Record<string, any>>} */
  const rows = new Map();
  for (const s of samples) {
    for (const [name, figures] of Object.entries(s.processes)) {
      const key = `${s.minute}\u0000${name}`;
      const row = rows.get(key) ?? {
        minute: s.minute,
        process: name,
        cpu: [],
        rssMb: 0,
        backlog: undefined,
        shed: 0,
        shedBy: {},
        queries: {},
      };
      if (figures.cpu !== undefined) row.cpu.push(figures.cpu);
      row.rssMb = Math.max(row.rssMb, figures.rssMb ?? 0);
      if (figures.backlog !== undefined) row.backlog = Math.max(row.backlog ?? 0, figures.backlog);
      row.shed = Math.max(row.shed, figures.shed ?? 0);
      for (const [where, n] of Object.entries(figures.shedBy ?? {}))
        row.shedBy[where] = Math.max(row.shedBy[where] ?? 0, n);
      for (const [c, n] of Object.entries(figures.queries ?? {})) row.queries[c] = (row.queries[c] ?? 0) + n;
      rows.set(key, row);
    }
  }
  return [...rows.values()].map((r) => ({
    ...r,
    cpu: r.cpu.length ? Math.round(r.cpu.reduce((a, b) => a + b, 0) / r.cpu.length) : undefined,
  }));
}

/** The markdown report. */
function report(result) {
  const kinds = Object.keys(result.mix);
  const fmt = (/** @type {any} */ s) => (s ? `${s.p50 ?? '-'} / ${s.p99 ?? '-'}` : '');
  const lines = [
    `# Soak: ${result.options.minutes} min at ${result.options.rate} requests/s${result.options.overload ? `, overload ${result.options.overload.rate}/s for ${result.options.overload.minutes} min` : ''}`,
    '',
    `- date: ${result.date}; machine: ${result.machine}`,
    '- platform: `npm start` layout (MongoDB stand-in on disk, Kafka, five processes), all on this machine',
    `- machine load average during the run: ${result.loadAverage.min} to ${result.loadAverage.max} on ${result.loadAverage.cores} cores (above the cores, other work competed for the CPU)`,
    result.hostSpeed
      ? `- host speed: a fixed piece of arithmetic took ${result.hostSpeed.min} to ${result.hostSpeed.max} ms of one core's CPU (bench/soak/host-speed.js; about 20 ms on the quiet development machine): more means a slower CPU, not a busier one`
      : '- host speed: not measured',
    '',
    '## Targets (issue 38)',
    '',
    '| target | this run | met |',
    '|---|---|---|',
    ...result.targets.map((t) => `| ${t.target} | ${t.figure} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    '## Latency per minute (p50 / p99 ms) and answers by status',
    '',
    `| minute | ${kinds.join(' | ')} | delivery lag | answers by status |`,
    `|---|${kinds.map(() => '---').join('|')}|---|---|`,
  ];
  for (const row of result.minutes) {
    const byStatus = Object.entries(row.statuses ?? {})
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    lines.push(
      `| ${row.minute} | ${kinds.map((k) => fmt(row[k])).join(' | ')} | ${fmt(row['delivery lag'])} | ${byStatus} |`,
    );
  }
  if (result.recovery?.length) {
    lines.push('', '## The recovery minute per 10 s (p50 / p99 ms)', '');
    lines.push(`| seconds | ${kinds.join(' | ')} |`, `|---|${kinds.map(() => '---').join('|')}|`);
    for (const row of result.recovery) lines.push(`| ${row.minute} | ${kinds.map((k) => fmt(row[k])).join(' | ')} |`);
  }
  const names = [...new Set(result.processes.map((/** @type {any} */ r) => r.process))];
  lines.push('', '## Processes per minute (mean CPU % of a core / peak RSS MB)', '');
  lines.push(
    `| minute | ${names.join(' | ')} | embedding backlog | shed so far (by where) | host speed (ms) |`,
    `|---|${names.map(() => '---').join('|')}|---|---|---|`,
  );
  const minutes = [...new Set(result.processes.map((/** @type {any} */ r) => r.minute))];
  for (const minute of minutes) {
    const rows = result.processes.filter((/** @type {any} */ r) => r.minute === minute);
    const cell = (/** @type {string} */ name) => {
      const r = rows.find((/** @type {any} */ x) => x.process === name);
      return r ? `${r.cpu ?? '-'} / ${r.rssMb}` : '';
    };
    const backlog = rows.find((/** @type {any} */ r) => r.backlog !== undefined)?.backlog ?? '';
    const total = rows.reduce((/** @type {number} */ sum, /** @type {any} */ r) => sum + (r.shed ?? 0), 0);
    const where = rows
      .flatMap((/** @type {any} */ r) => Object.entries(r.shedBy ?? {}))
      .filter(([, n]) => n > 0)
      .map(([w, n]) => `${w}: ${n}`);
    const shed = where.length ? `${total} (${where.join(', ')})` : `${total}`;
    const host = result.samples
      .filter((/** @type {any} */ s) => s.minute === minute && s.hostMs !== undefined)
      .map((/** @type {any} */ s) => s.hostMs)
      .sort((/** @type {number} */ a, /** @type {number} */ b) => a - b);
    const hostCell = percentile(host, 50) ?? '';
    lines.push(`| ${minute} | ${names.map(cell).join(' | ')} | ${backlog} | ${shed} | ${hostCell} |`);
  }
  const queries = {};
  for (const r of result.processes) {
    for (const [c, n] of Object.entries(r.queries)) queries[c] = (queries[c] ?? 0) + n;
  }
  lines.push('', '## Queries per collection (whole run, from /metrics)', '');
  if (Object.keys(queries).length === 0) lines.push('No service exports per-collection query counts on /metrics.');
  else for (const [c, n] of Object.entries(queries).sort((a, b) => b[1] - a[1])) lines.push(`- ${c}: ${n}`);
  const d = result.deliveries;
  const c = result.charges;
  lines.push(
    '',
    '## Deliveries and charges',
    '',
    `- deliveries: ${d.received} received, ${d.unique} distinct events, ${d.duplicates} duplicated, ${d.badSignatures} with a bad signature; answered work never announced: ${JSON.stringify(d.lost)}`,
    `- charges unsettled at the end of the load: ${JSON.stringify(c.atEndOfLoad)}; ${c.waitedSeconds} s later: ${JSON.stringify(c.after)}`,
    `- ledger (credits gone minus runs stored, answered chats' credits and credits still held; 0 = each charged once, more = work charged whose answer was lost): ${c.ledger.map((/** @type {any} */ l) => `tenant ${l.tenant}: gone ${l.spent}, held ${l.held}, drift ${l.drift}`).join('; ')}`,
    `- requests not sent (more than the client's bound in flight): ${JSON.stringify(result.skipped)}`,
  );
  if (result.drain) {
    lines.push(
      `- work left after the load: ${result.drain.items} memories without vectors, ${result.drain.done ? 'all embedded' : 'not all embedded'} ${result.drain.seconds} s later (the idle minutes start then)`,
    );
  }
  if (result.overload) {
    lines.push(
      `- overload answers other than 2xx, 429 or 503 with Retry-After: ${result.overload.count}${result.overload.examples.length ? ` (e.g. ${result.overload.examples.join('; ')})` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

module.exports = { minuteRows, processRows, report };
