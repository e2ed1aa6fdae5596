import { getHeapSpaceStatistics } from 'node:v8';

export interface NewSpace {
  /** Bytes V8 holds for the young generation (both semi-spaces). */
  committed: number;
  /** Bytes of it in use; it only falls at a collection. */
  used: number;
}

export interface YoungGenerationTrimOptions {
  /** How often the young generation is looked at. */
  checkEveryMs?: number;
  /** How long without a collection counts as quiet. */
  quietMs?: number;
  /** Reads the young generation (V8's `new_space`). */
  readNewSpace?: () => NewSpace;
  /** One young-generation collection; by default V8's `gc`, there only with `--expose-gc`. */
  collect?: () => void;
}

/** V8 starts the young generation at two 1 MB semi-spaces; above this it has grown. */
const GROWN_BYTES = 2 * 1024 * 1024;

function readNewSpace(): NewSpace {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return { committed: space?.space_size ?? 0, used: space?.space_used_size ?? 0 };
}

function exposedMinorGc(): (() => void) | undefined {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
  return gc ? () => gc({ type: 'minor' }) : undefined;
}

/**
 * Gives back the young generation a burst of work grew, once the process is quiet.
 *
 * Under load V8 grows the young generation to two 16 MB semi-spaces, and gives it back only at a
 * collection that finds the allocation rate since the previous one under 1 MB/s. Chrome runs such
 * collections in idle time; Node has none, so a process that goes quiet collects only when its
 * slow idle allocation has filled a semi-space: 30-70 s later for the gateway, holding about 30 MB
 * of RSS until then (docs/performance.md, "Idle memory: the young generation given back when
 * quiet"). Here, once the young generation has grown and no collection has happened for
 * `quietMs`, one young-generation collection is asked for, and V8 shrinks the space at it. 15 s
 * is well under the time a quiet process takes to fill a semi-space itself (32 s for the gateway),
 * and a semi-space holds at most 16 MB, so the rate is about 1 MB/s or less; if V8 finds it above,
 * it keeps the space and the next quiet spell asks again, when the rate is the process's idle one.
 * A busy process collects far more often, so this never runs under load. The price is V8's own,
 * paid sooner: the next burst starts with a small young generation and scavenges more often until
 * it has grown again. Without `--expose-gc` (no `gc`) it does nothing.
 *
 * @returns stops the checks
 */
export function trimYoungGenerationWhenQuiet(options: YoungGenerationTrimOptions = {}): () => void {
  const collect = options.collect ?? exposedMinorGc();
  if (!collect) return () => undefined;
  const read = options.readNewSpace ?? readNewSpace;
  const checkEveryMs = options.checkEveryMs ?? 5_000;
  const quietChecks = Math.ceil((options.quietMs ?? 15_000) / checkEveryMs);
  let lastUsed = read().used;
  let quietFor = 0;
  const timer = setInterval(() => {
    const { committed, used } = read();
    quietFor = used < lastUsed ? 0 : quietFor + 1;
    lastUsed = used;
    if (quietFor < quietChecks || committed <= GROWN_BYTES) return;
    collect();
    quietFor = 0;
    lastUsed = read().used;
  }, checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}
