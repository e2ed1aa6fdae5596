import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * Random numbers for ids from a pooled buffer: ulid's default source makes one crypto call per
 * character, which showed up at ~3% of a busy service's CPU. Same CSPRNG, one call per 4 KiB.
 */
const pool = Buffer.alloc(4096);
let offset = pool.length;
function pooledRandom(): number {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]! / 0x100;
}

const ulid = monotonicFactory(pooledRandom);

/** Resource id prefixes (docs/design.md section 3). */
export type IdPrefix =
  'usr' | 'ten' | 'key' | 'rtk' | 'agt' | 'ses' | 'msg' | 'mem' | 'wf' | 'exe' | 'wh' | 'dlv' | 'evt' | 'led' | 'err';

/**
 * A workflow hook id's shape (docs/design.md section 7: `hk_` and 32 base62 characters): what the
 * gateway and the workflow service accept before asking the database. Anything else is no hook.
 */
export const HOOK_ID = /^hk_[0-9A-Za-z]{32}$/;

/** Opaque, prefixed, time-sortable id, e.g. `agt_01JDQ7Y0M4W3T9Z6X8B2C5N1RK`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
