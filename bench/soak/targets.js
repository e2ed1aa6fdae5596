// @ts-check
'use strict';
/**
 * The issue 38 targets (docs/operations.md, "Soak"), checked on a soak's result so that a run is
 * read in a glance: each row is a target, the run's figure and whether it was met. Targets that
 * need a phase the run did not have (an overload, an idle period) are left out.
 */

/** @param {Record<string, number> | undefined} statuses */
const serverErrors = (statuses) =>
  Object.entries(statuses ?? {}).reduce((sum, [status, n]) => sum + (Number(status) >= 500 ? n : 0), 0);

/** @param {number[]} values */
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : undefined);

/**
 * @param {any} result the soak's JSON result (scripts/soak.js)
 * @returns {Array<{ target: string, figure: string, met: boolean }>}
 */
function checkTargets(result) {
  const kinds = Object.keys(result.mix);
  const rows = [];
  const add = (/** @type {string} */ target, /** @type {string} */ figure, /** @type {boolean} */ met) =>
    rows.push({ target, figure, met });
  // A phase's answers end with it; a last bucket holds only the deliveries that came after.
  const minutesOf = (/** @type {string} */ phase) =>
    result.minutes.filter(
      (/** @type {any} */ m) => m.minute.startsWith(`${phase} `) && kinds.some((k) => m[k] !== undefined),
    );
  const steady = minutesOf('steady');
  const first = steady[0];
  const last = steady[steady.length - 1];

  const errors = steady.reduce((/** @type {number} */ n, /** @type {any} */ m) => n + serverErrors(m.statuses), 0);
  // 429s are not the target's, but a refusal all the same: the figure names them.
  const limited = steady.reduce((/** @type {number} */ n, /** @type {any} */ m) => n + (m.statuses?.['429'] ?? 0), 0);
  add('0 5xx at the steady rate', `${errors}${limited ? ` (and ${limited} 429)` : ''}`, errors === 0);
  if (steady.length >= 2) {
    const ratios = kinds
      .filter((k) => first[k]?.p99 && last[k]?.p99)
      .map((k) => ({ kind: k, ratio: last[k].p99 / first[k].p99 }));
    add(
      "each kind's p99 in the last minute within 2x of the first",
      ratios.map((r) => `${r.kind} ${r.ratio.toFixed(2)}x`).join(', '),
      ratios.every((r) => r.ratio <= 2),
    );
  }
  const lag = Math.max(0, ...steady.map((/** @type {any} */ m) => m['delivery lag']?.p99 ?? 0));
  add('delivery lag p99 under 1 s (worst steady minute)', `${lag} ms`, lag < 1000);

  const loadMinutes = new Set(result.minutes.map((/** @type {any} */ m) => m.minute));
  const processMinutes = (/** @type {string} */ phase, /** @type {string} */ name) =>
    result.processes.filter(
      (/** @type {any} */ r) =>
        r.minute.startsWith(`${phase} `) && r.process === name && (phase === 'idle' || loadMinutes.has(r.minute)),
    );
  const backlog = processMinutes('steady', 'agent-memory').map((/** @type {any} */ r) => r.backlog ?? 0);
  if (backlog.length >= 3) {
    const early = Math.max(...backlog.slice(0, 2));
    const late = backlog[backlog.length - 1];
    add(
      'embedding backlog bounded (last steady minute at most 1.25x the first two, or under 100)',
      `peak of minutes 1-2: ${early}, last minute: ${late}`,
      late <= Math.max(100, 1.25 * early),
    );
  }
  const mongo = processMinutes('steady', 'mongo (stand-in)').map((/** @type {any} */ r) => r.cpu ?? 0);
  if (mongo.length >= 4) {
    const half = Math.floor(mongo.length / 2);
    const early = mean(mongo.slice(1, Math.min(6, half + 1))) ?? 0;
    const late = mean(mongo.slice(Math.max(half, mongo.length - 5))) ?? 0;
    add(
      'stand-in CPU flat (last 5 minutes within 1.25x of minutes 2-6)',
      `${Math.round(early)}% then ${Math.round(late)}% of a core`,
      late <= 1.25 * early,
    );
  }
  const d = result.deliveries;
  const lost = Object.values(d.lost).reduce((/** @type {number} */ a, /** @type {any} */ b) => a + b, 0);
  add('0 deliveries lost or duplicated', `${lost} lost, ${d.duplicates} duplicated`, lost === 0 && d.duplicates === 0);
  const open = Object.values(result.charges.after).reduce((/** @type {number} */ a, /** @type {any} */ b) => a + b, 0);
  const drift = result.charges.ledger.reduce(
    (/** @type {number} */ a, /** @type {any} */ l) => a + Math.abs(l.drift),
    0,
  );
  add(
    '0 charges unsettled 2 minutes after the load, ledger drift 0',
    `${open} open after ${result.charges.waitedSeconds} s, drift ${drift}`,
    open === 0 && drift === 0,
  );

  if (result.overload) {
    add(
      'overload: every answer 2xx, 429 or 503 with Retry-After',
      `${result.overload.count} others`,
      result.overload.count === 0,
    );
    const admitted = minutesOf('overload').map((/** @type {any} */ m) => m.admitted?.p99 ?? 0);
    add(
      'overload: admitted requests p99 under 2 s',
      admitted.map((p) => `${p} ms`).join(', '),
      admitted.every((p) => p < 2000),
    );
    const recovery = minutesOf('recovery')[0];
    if (recovery && last) {
      const slower = kinds.filter((k) => recovery[k]?.p99 && last[k]?.p99 && recovery[k].p99 > 2 * last[k].p99);
      const recoveryErrors = serverErrors(recovery.statuses);
      add(
        'recovery: the minute after the overload has 0 5xx and p99 within 2x of the last steady minute',
        `${recoveryErrors} 5xx; slower: ${slower.join(', ') || 'none'}`,
        recoveryErrors === 0 && slower.length === 0,
      );
    }
  }

  const idle = [...new Set(result.processes.map((/** @type {any} */ r) => r.process))].map((name) => ({
    name,
    cpu: mean(processMinutes('idle', name).map((/** @type {any} */ r) => r.cpu ?? 0)),
  }));
  if (idle.some((p) => p.cpu !== undefined)) {
    const drain = result.drain;
    const drained = drain
      ? `; before them the ${drain.items} memories left without vectors took ${drain.seconds} s`
      : '';
    add(
      'idle on the data left: every process under 5% of a core',
      idle.map((p) => `${p.name} ${p.cpu?.toFixed(1)}%`).join(', ') + drained,
      idle.every((p) => (p.cpu ?? 0) < 5) && (!drain || drain.done),
    );
  }
  return rows;
}

module.exports = { checkTargets };
