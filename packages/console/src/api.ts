import createClient from 'openapi-fetch';
import type { components, paths } from '@agentplatform/sdk/src/api-types';

export type ApiErrorBody = components['schemas']['Error'];

/** An answer of the API that is not a success, kept whole so a page can show what it said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message || `HTTP ${status}`);
  }
}

/**
 * The access token lives in memory only (DESIGN section 10). The refresh token never reaches this
 * code: the gateway keeps it in an HttpOnly cookie sent to /api/v1/auth/refresh alone, so a reload
 * renews the session with one refresh and no script, ours or injected, can read the long-lived token.
 */
let accessToken: string | undefined;
let tenantId: string | undefined;
let refreshing: Promise<boolean> | undefined;
let onSignedOut: () => void = () => undefined;

export function setAccessToken(next: string | undefined): void {
  accessToken = next;
}
export function setTenant(id: string | undefined): void {
  tenantId = id;
}
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

const BASE = '/api/v1';
const raw = createClient<paths>({ baseUrl: BASE });

/**
 * A new access token from the refresh cookie, which rotates on every use. One renewal at a time:
 * parallel 401s wait for the same refresh (a reused token revokes the family).
 */
function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    const { data } = await raw.POST('/auth/refresh', { body: { refresh_cookie: true } });
    accessToken = data?.access_token;
    if (!data) onSignedOut();
    return data !== undefined;
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/** Signs in; the gateway sets the refresh cookie and answers the access token. */
export async function logIn(username: string, password: string): Promise<void> {
  const { access_token } = await must(raw.POST('/auth/login', { body: { username, password, refresh_cookie: true } }));
  accessToken = access_token;
}

/** Ends the cookie's session on the server (its access tokens stop working too) and forgets ours. */
export async function logOut(): Promise<void> {
  await raw.DELETE('/auth/refresh').catch(() => undefined);
  accessToken = undefined;
}

/**
 * Every authenticated call carries the access token and the chosen tenant. The body is read once,
 * so a request refused with 401 (the access token expired) is sent again after one renewal.
 */
async function authorizedFetch(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (tenantId && !url.searchParams.has('tenant_id')) url.searchParams.set('tenant_id', tenantId);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  const send = () => {
    const headers = new Headers(request.headers);
    if (accessToken) headers.set('Authorization', `Bearer ${accessToken}`);
    return fetch(url, { method: request.method, headers, body, signal: request.signal });
  };
  const response = await send();
  if (response.status !== 401 || !accessToken || !(await refresh())) return response;
  return send();
}

export const api = createClient<paths>({ baseUrl: BASE, fetch: authorizedFetch });
export { raw as publicApi };

/** The body of a success, or an ApiError: what TanStack Query expects of a query function. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) {
    const body = (error ?? {}) as Partial<ApiErrorBody>;
    throw new ApiError(response.status, {
      error: body.error ?? 'http_error',
      message: body.message ?? response.statusText,
      details: body.details,
      retry_after: body.retry_after,
    });
  }
  return data;
}

/** Headers for a raw fetch (SSE chat), with the same credentials and tenant as the client. */
export function authorizedUrl(pathname: string): { url: string; headers: Record<string, string> } {
  const url = new URL(BASE + pathname, window.location.origin);
  if (tenantId) url.searchParams.set('tenant_id', tenantId);
  return { url: url.toString(), headers: accessToken ? { Authorization: `Bearer ${accessToken}` } : {} };
}

export { refresh as renewAccessToken };
