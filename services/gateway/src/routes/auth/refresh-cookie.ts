import type { Context } from 'koa';

/**
 * The refresh token as a browser keeps it (DESIGN section 10, docs/security.md "The console's
 * session"): out of reach of the page's JavaScript (HttpOnly), never sent by another site
 * (SameSite=Strict), and sent to the refresh route only (its Path), where the answer is JSON that
 * only this origin can read. A session cookie: the token's own lifetime is kept by identity.
 */
export const REFRESH_COOKIE = 'ap_refresh';
export const REFRESH_COOKIE_PATH = '/api/v1/auth/refresh';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** `Secure` everywhere but a developer's own machine, where the console is served over plain HTTP. */
function secure(ctx: Context): boolean {
  return !(LOCAL_HOSTS.has(ctx.hostname) || ctx.hostname.endsWith('.localhost'));
}

/**
 * Written by hand rather than with ctx.cookies.set: Koa refuses a Secure cookie on a request it
 * does not see as HTTPS, and behind a TLS-terminating proxy it sees none as HTTPS unless
 * TRUSTED_PROXY_HOPS is set; a browser on plain HTTP drops a Secure cookie by itself.
 */
function write(ctx: Context, value: string, maxAge?: number): void {
  const attributes = [
    `${REFRESH_COOKIE}=${encodeURIComponent(value)}`,
    `Path=${REFRESH_COOKIE_PATH}`,
    'HttpOnly',
    'SameSite=Strict',
  ];
  if (maxAge !== undefined) attributes.push(`Max-Age=${maxAge}`);
  if (secure(ctx)) attributes.push('Secure');
  ctx.append('Set-Cookie', attributes.join('; '));
}

export function setRefreshCookie(ctx: Context, refreshToken: string): void {
  write(ctx, refreshToken);
}

export function clearRefreshCookie(ctx: Context): void {
  write(ctx, '', 0);
}

/** The cookie's token; a value that is not one this route wrote is no token (identity refuses it). */
export function readRefreshCookie(ctx: Context): string | undefined {
  const value = ctx.cookies.get(REFRESH_COOKIE);
  if (!value) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
