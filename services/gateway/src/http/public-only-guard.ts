import { UnauthorizedError } from '@agentplatform/service-kit';
import type { AccessGuard } from './route.js';

/** Admits public routes only; authenticated routes arrive with the identity service's guard. */
export const publicOnlyGuard: AccessGuard = {
  async authorize(_ctx, access) {
    if (access.kind !== 'none') throw new UnauthorizedError('Authentication is not available');
    return undefined;
  },
};
