import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { DomainError, type ErrorCode, type Scope } from '@agentplatform/service-kit';
import { readBody } from './json-body.js';
import { parseOrThrow } from './validation.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The scopes of docs/design.md section 4 (defined once, in service-kit). */
export { SCOPES, type Scope } from '@agentplatform/service-kit';

/**
 * Who may call a route: `none` (public: register, login, refresh, health, hooks), `user` (any
 * authenticated caller with no particular scope, API keys only when `apiKeys`, optionally only
 * some tenant roles: me, API-key management, purchases), one scope (docs/design.md section 4), or
 * `operator`: the platform's operator token (OPERATOR_TOKEN), acting on no tenant of its own.
 */
export type RouteAccess =
  | { kind: 'none' }
  | { kind: 'user'; apiKeys: boolean; roles?: readonly string[] }
  | { kind: 'scope'; scope: Scope }
  | { kind: 'operator' };

/** The access rules that establish a caller: the handler gets one. */
export type CallerAccess = Extract<RouteAccess, { kind: 'user' | 'scope' }>;

export const publicAccess: Extract<RouteAccess, { kind: 'none' }> = { kind: 'none' };
/** An access token (a logged-in user), never an API key. */
export const userOnly: CallerAccess = { kind: 'user', apiKeys: false };
/** Any authenticated caller, API keys included, whatever its scopes. */
export const anyCaller: CallerAccess = { kind: 'user', apiKeys: true };
/** An access token of a user who owns the tenant. */
export const ownerOnly: CallerAccess = { kind: 'user', apiKeys: false, roles: ['owner'] };
export const requireScope = (scope: Scope): CallerAccess => ({ kind: 'scope', scope });
/** The operator token (OPERATOR_TOKEN), never a user or an API key; the route has no caller. */
export const operatorOnly: Extract<RouteAccess, { kind: 'operator' }> = { kind: 'operator' };

/** What a route's handler gets as its caller: one for user and scope routes, none for public and operator ones. */
type CallerOf<A extends RouteAccess> = A extends CallerAccess ? Caller : undefined;

/** The caller, as established by the authentication middleware. */
export interface Caller {
  kind: 'user' | 'api_key';
  userId: string;
  /** The tenant the request acts on (the `tenant_id` query parameter, or the caller's default). */
  tenantId: string;
  role: string;
  scopes: readonly Scope[];
  apiKeyId?: string;
  /** What `/auth/me` says about the API key the caller used. */
  apiKeyName?: string;
  apiKeyPrefix?: string;
  apiKeyExpiresAt?: string;
  /** The access token's session (refresh family); revoking it ends the token. */
  sessionId?: string;
  /** The tenant's plan (free, starter, pro, enterprise). */
  plan?: string;
}

interface RouteInput<B, Q, P, C extends Caller | undefined = Caller | undefined> {
  body: B;
  query: Q;
  params: P;
  caller: C;
  ctx: Context;
}

/** A route: one place for its path, access rule, schemas (which also feed OpenAPI) and handler. */
interface RouteDefinition<B = unknown, Q = unknown, P = Record<string, string>, A extends RouteAccess = RouteAccess> {
  method: HttpMethod;
  /** @koa/router path, e.g. `/agents/:agent_id`. */
  path: string;
  summary: string;
  tag: string;
  access: A;
  body?: z.ZodType<B>;
  /** A request body that works as it is: the docs page's "Try it out" sends it. */
  example?: unknown;
  /** Content types the body may have; JSON unless stated. */
  bodyTypes?: ReadonlyArray<'json' | 'form'>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** Status of a successful answer (200 unless stated). */
  status?: number;
  /** Another success status the handler may choose (202: accepted, still running), same body. */
  alternateStatus?: number;
  /** Errors this route answers beyond the ones every route may (for the OpenAPI document). */
  errors?: ReadonlyArray<ErrorCode>;
  /** Schema of a successful answer, for the OpenAPI document. */
  response?: z.ZodType;
  /** Idempotency-Key support (POST routes with side effects). */
  idempotent?: boolean;
  /**
   * The handler passes the Idempotency-Key to a backend that performs the request once per key
   * (the credit ledger): a retry after a lost answer runs it again and gets the first outcome.
   */
  keyReachesBackend?: boolean;
  /** Status of a validation error: 422 on the auth endpoints (docs/api-guide.md, "Errors"), 400 elsewhere. */
  validationStatus?: 400 | 422;
  /** Counts the request against a per-client-address budget of this name (unauthenticated routes). */
  addressLimit?: string;
  /**
   * Checks that run before the body is read (mountBeforeBody), with the route's parsed path
   * parameters: an anonymous route refuses what it can tell from its path (an unknown hook id)
   * without reading and scanning a megabyte first. The handler runs only after they passed.
   */
  beforeBody?: (input: { ctx: Context; params: P }) => Promise<void>;
  handler: (input: RouteInput<B, Q, P, CallerOf<A>>) => Promise<unknown>;
}

/**
 * A route of any body, query and params, as lists of routes hold them. Its handler takes input of
 * a type only its own schemas know, so it is callable here only with what those schemas parsed.
 */
export type Route = Omit<RouteDefinition<unknown, unknown, unknown>, 'handler' | 'beforeBody'> & {
  beforeBody?: (input: { ctx: Context; params: never }) => Promise<void>;
  handler: (input: RouteInput<never, never, never, never>) => Promise<unknown>;
};

/** Helps TypeScript infer B, Q and P from the schemas, and the caller from the access rule. */
export function defineRoute<
  B = undefined,
  Q = undefined,
  P = Record<string, string>,
  A extends RouteAccess = RouteAccess,
>(route: RouteDefinition<B, Q, P, A>): RouteDefinition<B, Q, P, A> {
  return route;
}

/** Establishes and checks the caller for a route; provided by the auth module. */
export interface AccessGuard {
  authorize(ctx: Context, access: CallerAccess): Promise<Caller>;
  authorize(ctx: Context, access: RouteAccess): Promise<Caller | undefined>;
}

/**
 * The checks and policies a route passes through around its handler: the access guard, the
 * per-address budget of unauthenticated routes, and Idempotency-Key replay (which wraps the handler).
 */
export interface RouteGuards {
  access: AccessGuard;
  idempotency?: (
    ctx: Context,
    caller: Caller | undefined,
    run: () => Promise<void>,
    options: { rerunAfterLostAnswer?: boolean },
  ) => Promise<void>;
  addressLimit?: (ctx: Context, bucket: string) => Promise<void>;
}

const METHODS_WITH_BODY = new Set(['post', 'put', 'patch']);

function checkContentType(ctx: Context, types: ReadonlyArray<'json' | 'form'>): void {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (!hasBody) return;
  const accepted = types.map((t) => (t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded'));
  if (!ctx.is(accepted)) {
    throw new DomainError('unsupported_media_type', `Content-Type must be ${accepted.join(' or ')}`);
  }
}

/**
 * Adds the routes' `beforeBody` checks to a router that the app runs before its body parser
 * (app.ts); a request that passes them goes on to be read and routed. A refusal answers with
 * `Connection: close` while the body has not all arrived: Node would otherwise read the rest (up
 * to the 1 MiB limit, or a chunked body's without end) to throw it away and keep the connection;
 * closed, the gateway has read at most one socket buffer of it.
 */
export function mountBeforeBody(router: Router, routes: ReadonlyArray<Route>): void {
  for (const route of routes) {
    // The route's own params schema parses what its check takes.
    const check = route.beforeBody as ((input: { ctx: Context; params: unknown }) => Promise<void>) | undefined;
    if (!check) continue;
    router[route.method](route.path, async (ctx, next) => {
      // A body of a type the route does not take is refused before any check asks a backend.
      if (METHODS_WITH_BODY.has(route.method)) checkContentType(ctx, route.bodyTypes ?? ['json']);
      const params = route.params ? parseOrThrow(route.params, ctx.params, 'path') : ctx.params;
      await check({ ctx, params });
      await next();
    });
  }
}

/** Adds routes to a router: access check, content type, validation, handler, status. */
export function mountRoutes(router: Router, routes: ReadonlyArray<Route>, guards: RouteGuards): void {
  for (const route of routes) {
    router[route.method](route.path, async (ctx) => {
      if (route.addressLimit && guards.addressLimit) await guards.addressLimit(ctx, route.addressLimit);
      const caller = await guards.access.authorize(ctx, route.access);
      if (METHODS_WITH_BODY.has(route.method)) checkContentType(ctx, route.bodyTypes ?? ['json']);
      // Only now, the request admitted, is its body read; a body that is not JSON at all (or too
      // deep, or with a refused key) is a 400 on every route.
      await readBody(ctx);
      // Read by the error handler, which answers the schemas' validation errors with this status.
      if (route.validationStatus) ctx.state.validationStatus = route.validationStatus;
      const rawBody = (ctx.request as { body?: unknown }).body;
      const respond = async () => {
        const input: RouteInput<unknown, unknown, unknown> = {
          body: route.body ? parseOrThrow(route.body, rawBody ?? {}) : undefined,
          query: route.query ? parseOrThrow(route.query, ctx.query, 'query') : undefined,
          params: route.params ? parseOrThrow(route.params, ctx.params, 'path') : ctx.params,
          caller,
          ctx,
        };
        // The schemas of this very route parsed body, query and params: they are what its handler takes.
        // The guard answered a caller for exactly the access rules whose handlers take one.
        const result = await route.handler(input as RouteInput<never, never, never, never>);
        // A handler whose answer decides the status (202 still running, 200 finished) sets responseStatus.
        ctx.status = typeof ctx.state.responseStatus === 'number' ? ctx.state.responseStatus : (route.status ?? 200);
        if (result !== undefined) ctx.body = result;
      };
      if (route.idempotent && guards.idempotency && ctx.get('idempotency-key')) {
        await guards.idempotency(ctx, caller, respond, { rerunAfterLostAnswer: route.keyReachesBackend === true });
      } else {
        await respond();
      }
    });
  }
}
