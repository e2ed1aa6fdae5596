import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** Resource id prefixes (DESIGN.md section 3). */
export type IdPrefix =
  | 'usr'
  | 'ten'
  | 'key'
  | 'rtk'
  | 'agt'
  | 'ses'
  | 'msg'
  | 'mem'
  | 'wf'
  | 'exe'
  | 'wh'
  | 'dlv'
  | 'evt'
  | 'led'
  | 'err';

/** Opaque, prefixed, time-sortable id, e.g. `agt_01JDQ7Y0M4W3T9Z6X8B2C5N1RK`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
