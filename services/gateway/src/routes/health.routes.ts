import type Router from '@koa/router';
import type { Backends, BackendName } from '../clients/backends.js';

/**
 * `GET /healthz`: the process is up. `GET /readyz`: every backend answers its gRPC health check
 * with SERVING, which each service reports only while its database is reachable.
 */
export function mountHealthRoutes(router: Router, backends: Backends): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const names = Object.keys(backends.health) as BackendName[];
    const states = await Promise.all(
      names.map(async (name) => {
        try {
          const { status } = await backends.health[name].check({ service: '' });
          return [name, status === 1 ? 'up' : 'down'] as const;
        } catch {
          return [name, 'down'] as const;
        }
      }),
    );
    const services = Object.fromEntries(states);
    const down = states.filter(([, state]) => state === 'down').map(([name]) => name);
    if (down.length === 0) {
      ctx.body = { status: 'ready', services };
    } else {
      ctx.status = 503;
      ctx.body = { error: 'service_unavailable', message: `Not ready: ${down.join(', ')} unavailable`, services };
    }
  });
}
