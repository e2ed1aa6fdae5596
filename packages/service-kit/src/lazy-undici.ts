import { lazy } from './lazy.js';

/**
 * undici, required on the first outbound call: it holds about 12 MB of a process's memory, and
 * identity and the gateway, which make no outbound calls through this kit, load the kit all the
 * same (docs/performance.md, idle memory).
 */
export const undici = lazy(() => require('undici') as typeof import('undici'));
