import { EventTap } from './event-tap.js';
import { newTenant, type Http, type RegisteredUser } from './fixtures.js';
import { startPlatform, type Platform, type PlatformOptions } from './platform.js';

/** A started platform, one signed-up tenant calling it, and a tap on the events topic. */
export interface TenantPlatform {
  platform: Platform;
  tap: EventTap;
  http: Http;
  tenantId: string;
  /** The tenant's owner (its access token is the one `http` sends). */
  user: RegisteredUser;
  stop(): Promise<void>;
}

/**
 * The start of most e2e suites: the platform with `options`, an event tap named `tapLabel` and a
 * new tenant's authenticated client. Call `stop()` in afterAll (tap, then platform).
 */
export async function startTenantPlatform(options: PlatformOptions, tapLabel: string): Promise<TenantPlatform> {
  const platform = await startPlatform(options);
  let tap: EventTap | undefined;
  const stop = async () => {
    await tap?.stop();
    await platform.stop();
  };
  try {
    tap = await EventTap.start(platform, tapLabel);
    const tenant = await newTenant(platform);
    return { platform, tap, http: tenant.http, tenantId: tenant.user.tenantId, user: tenant.user, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
