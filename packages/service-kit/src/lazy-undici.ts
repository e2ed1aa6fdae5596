type Undici = typeof import('undici');
let loaded: Undici | undefined;

/**
 * undici, required on the first outbound call: it holds about 12 MB of a process's memory, and
 * identity and the gateway, which make no outbound calls through this kit, load the kit all the
 * same (docs/performance.md, idle memory).
 */
export function undici(): Undici {
  loaded ??= require('undici') as Undici;
  return loaded;
}
