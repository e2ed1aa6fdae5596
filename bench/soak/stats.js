// @ts-check
'use strict';
/** Small statistics for the soak report: percentiles and per-minute buckets. */

/**
 * The p-th percentile of sorted numbers (nearest rank), or undefined when there are none.
 * @param {number[]} sorted
 * @param {number} p
 */
function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * p50 and p99 of some numbers, rounded to the millisecond.
 * @param {number[]} values
 */
function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (/** @type {number | undefined} */ v) => (v === undefined ? undefined : Math.round(v));
  return { count: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) };
}

/** Values kept by phase and minute (from the phase's start), then by a key (a request kind). */
class MinuteBuckets {
  constructor() {
    /** @type {Map<string, Map<string, number[]>>} */
    this.buckets = new Map();
  }

  /**
   * @param {string} minute e.g. `steady 3`
   * @param {string} key
   * @param {number} value
   */
  add(minute, key, value) {
    let byKey = this.buckets.get(minute);
    if (!byKey) this.buckets.set(minute, (byKey = new Map()));
    let values = byKey.get(key);
    if (!values) byKey.set(key, (values = []));
    values.push(value);
  }

  /** @returns {Array<{ minute: string, key: string, values: number[] }>} every bucket, in order of arrival */
  entries() {
    const out = [];
    for (const [minute, byKey] of this.buckets) for (const [key, values] of byKey) out.push({ minute, key, values });
    return out;
  }
}

module.exports = { percentile, summary, MinuteBuckets };
