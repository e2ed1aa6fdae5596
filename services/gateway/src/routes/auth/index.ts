import type { Context } from 'koa';
import { ValidationError } from '@agentplatform/service-kit';
import { anyCaller, defineRoute, publicAccess, userOnly, type Route } from '../../http/route.js';
import { jsonFields, tenantRequest } from '../../http/json-fields.js';
import type { RouteDeps } from '../deps.js';
import {
  apiKeyCreatedResponse,
  apiKeyListResponse,
  createApiKeyBody,
  keyIdParams,
  loginBody,
  logoutBody,
  logoutResponse,
  meResponse,
  refreshBody,
  registerBody,
  registerResponse,
  revokeResponse,
  tokenResponse,
} from './auth.schemas.js';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from './refresh-cookie.js';

type Tokens = { accessToken: string; tokenType: string; expiresIn: number; refreshToken: string };

/** The answer of login and refresh; with `inCookie`, the refresh token goes to the cookie only. */
function tokens(answer: Tokens, cookie?: { ctx: Context; inCookie: boolean }) {
  const body = { access_token: answer.accessToken, token_type: 'bearer' as const, expires_in: answer.expiresIn };
  if (!cookie?.inCookie) return { ...body, refresh_token: answer.refreshToken };
  setRefreshCookie(cookie.ctx, answer.refreshToken);
  return body;
}

/** The API reference, Authentication and keys. Validation errors here are 422. */
/** What `GET /auth/api-keys` shows of each key (the secret is never shown again). */
const API_KEY_LIST_FIELDS = ['id', 'name', 'key_prefix', 'scopes', 'last_used_at', 'created_at', 'expires_at'] as const;

export function authRoutes({ backends, revocations, profiles }: RouteDeps): Route[] {
  const identity = backends.identity;
  const endSession = async (refreshToken: string) => {
    const { sessionId } = await identity.logout({ refreshToken });
    if (sessionId) revocations?.forgetSession(sessionId);
  };
  return [
    defineRoute({
      method: 'post',
      path: '/auth/register',
      errors: ['conflict'],
      summary: 'Register a user; creates a tenant they own with welcome credits',
      tag: 'auth',
      access: publicAccess,
      addressLimit: 'register',
      validationStatus: 422,
      body: registerBody,
      example: {
        email: 'ada@example.com',
        password: 'correct horse battery',
        full_name: 'Ada Lovelace',
        company: 'Analytical Engines',
      },
      status: 201,
      response: registerResponse,
      handler: async ({ body }) => {
        const answer = await identity.register({
          email: body.email,
          password: body.password,
          fullName: body.full_name ?? '',
          company: body.company ?? '',
        });
        return {
          id: answer.user!.id,
          email: answer.user!.email,
          full_name: answer.user!.fullName,
          tenant_id: answer.tenantId,
          credits: answer.credits,
          created_at: answer.user!.createdAt,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/login',
      errors: ['unauthorized'],
      summary: 'Log in with e-mail (username) and password',
      tag: 'auth',
      access: publicAccess,
      addressLimit: 'login',
      validationStatus: 422,
      bodyTypes: ['form', 'json'],
      body: loginBody,
      example: { username: 'ada@example.com', password: 'correct horse battery' },
      response: tokenResponse,
      handler: async ({ body, ctx }) =>
        tokens(await identity.login({ email: body.username, password: body.password }), {
          ctx,
          inCookie: body.refresh_cookie === true,
        }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/refresh',
      errors: ['unauthorized'],
      summary:
        "Exchange a refresh token (the body's, else the refresh cookie's) for new tokens (the old one stops working)",
      tag: 'auth',
      access: publicAccess,
      addressLimit: 'refresh',
      validationStatus: 422,
      body: refreshBody,
      example: { refresh_token: 'paste the refresh_token that login answered' },
      response: tokenResponse,
      handler: async ({ body, ctx }) => {
        // The body wins: an API client's token is never replaced by a cookie it did not know of.
        const fromCookie = body.refresh_token ? undefined : readRefreshCookie(ctx);
        const refreshToken = body.refresh_token ?? fromCookie;
        if (!refreshToken)
          throw ValidationError.field('refresh_token', 'is required (in the body or the refresh cookie)');
        const answer = await identity.refresh({ refreshToken });
        return tokens(answer, { ctx, inCookie: fromCookie !== undefined || body.refresh_cookie === true });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/refresh',
      summary: "End the refresh cookie's login session and clear the cookie (a browser's logout)",
      tag: 'auth',
      access: publicAccess,
      addressLimit: 'refresh',
      validationStatus: 422,
      response: logoutResponse,
      handler: async ({ ctx }) => {
        const refreshToken = readRefreshCookie(ctx);
        clearRefreshCookie(ctx);
        if (refreshToken) await endSession(refreshToken);
        return { success: true, message: 'Logged out' };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      summary: 'End a login session: its refresh tokens and its access tokens stop working',
      tag: 'auth',
      access: publicAccess,
      addressLimit: 'refresh',
      validationStatus: 422,
      body: logoutBody,
      response: logoutResponse,
      handler: async ({ body, ctx }) => {
        // The cookie is sent to the refresh path only: clearing it here is all logout can do with it.
        clearRefreshCookie(ctx);
        await endSession(body.refresh_token);
        return { success: true, message: 'Logged out' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/me',
      summary: 'The current user and their tenants; with an API key, the key itself',
      tag: 'auth',
      access: anyCaller,
      validationStatus: 422,
      response: meResponse,
      handler: async ({ caller }) => {
        if (caller.kind === 'api_key') {
          return {
            type: 'api_key' as const,
            id: caller.apiKeyId!,
            name: caller.apiKeyName ?? '',
            key_prefix: caller.apiKeyPrefix ?? '',
            scopes: [...caller.scopes],
            tenant_id: caller.tenantId,
            expires_at: caller.apiKeyExpiresAt ?? null,
          };
        }
        const me = profiles ? await profiles.profile(caller) : await identity.getMe({ userId: caller.userId });
        return {
          id: me.user!.id,
          email: me.user!.email,
          full_name: me.user!.fullName,
          is_active: me.user!.isActive,
          created_at: me.user!.createdAt,
          tenants: me.tenants.map((t) => ({ id: t.id, name: t.name, role: t.role })),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/api-keys',
      summary: 'Create an API key (needs a user access token)',
      tag: 'auth',
      access: userOnly,
      validationStatus: 422,
      idempotent: true,
      body: createApiKeyBody,
      example: { name: 'CI deploys', scopes: ['agents:read', 'workflows:execute'] },
      status: 201,
      response: apiKeyCreatedResponse,
      handler: async ({ body, caller }) => {
        const answer = await identity.createApiKey({ userId: caller.userId, ...tenantRequest(caller, body) });
        const fields = jsonFields(answer.apiKey!, ['id', 'name', 'key_prefix', 'scopes', 'created_at', 'expires_at']);
        return { ...fields, key: answer.key };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/api-keys',
      summary: 'List API keys (the secret is never shown again; key_prefix identifies it)',
      tag: 'auth',
      access: userOnly,
      validationStatus: 422,
      response: apiKeyListResponse,
      handler: async ({ caller }) => {
        const answer = await identity.listApiKeys({ userId: caller.userId, tenantId: caller.tenantId });
        return { items: answer.items.map((key) => jsonFields(key, API_KEY_LIST_FIELDS)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/api-keys/:key_id',
      summary: 'Revoke an API key',
      tag: 'auth',
      access: userOnly,
      validationStatus: 422,
      params: keyIdParams,
      response: revokeResponse,
      handler: async ({ params, caller }) => {
        await identity.revokeApiKey({ userId: caller.userId, tenantId: caller.tenantId, keyId: params.key_id });
        revocations?.forgetApiKey(params.key_id);
        return { success: true, message: 'API key revoked' };
      },
    }),
  ];
}
