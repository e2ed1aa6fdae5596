import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A hook id's shape, shared with the gateway's hook route. */
export { HOOK_ID } from '@agentplatform/service-kit';

/**
 * A new secret hook id (docs/design.md section 7): `hk_` and 32 base62 characters from the CSPRNG
 * (about 190 bits), never derived from the workflow id: the hook URL is its own secret.
 */
export function newHookId(): string {
  let id = 'hk_';
  for (let i = 0; i < 32; i++) id += BASE62[randomInt(62)];
  return id;
}
