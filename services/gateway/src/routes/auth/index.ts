import { anyCaller, defineRoute, publicAccess, userOnly, type Route } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';
import {
  apiKeyCreatedResponse,
  apiKeyListResponse,
  createApiKeyBody,
  keyIdParams,
  loginBody,
  logoutResponse,
  meResponse,
  refreshBody,
  registerBody,
  registerResponse,
  revokeResponse,
  tokenResponse,
} from './auth.schemas.js';

function tokens(answer: { accessToken: string; tokenType: string; expiresIn: number; refreshToken: string }) {
  return {
    access_token: answer.accessToken,
    token_type: 'bearer' as const,
    expires_in: answer.expiresIn,
    refresh_token: answer.refreshToken,
  };
}

/** The API reference, Authentication and keys. Validation errors here are 422. */
export function authRoutes({ backends, revocations, profiles }: RouteDeps): Route[] {
  const identity = backends.identity;
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
      handler: async ({ body }) => tokens(await identity.login({ email: body.username, password: body.password })),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/refresh',
      errors: ['unauthorized'],
      summary: 'Exchange a refresh token for new tokens (the old one stops working)',
      tag: 'auth',
      access: publicAccess,
      addressLimit: 'refresh',
      validationStatus: 422,
      body: refreshBody,
      example: { refresh_token: 'paste the refresh_token that login answered' },
      response: tokenResponse,
      handler: async ({ body }) => tokens(await identity.refresh({ refreshToken: body.refresh_token })),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/logout',
      summary: 'End a login session: its refresh tokens and its access tokens stop working',
      tag: 'auth',
      access: publicAccess,
      addressLimit: 'refresh',
      validationStatus: 422,
      body: refreshBody,
      response: logoutResponse,
      handler: async ({ body }) => {
        const { sessionId } = await identity.logout({ refreshToken: body.refresh_token });
        if (sessionId) revocations?.forgetSession(sessionId);
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
        const answer = await identity.createApiKey({
          userId: caller.userId,
          tenantId: caller.tenantId,
          name: body.name,
          scopes: body.scopes,
          expiresAt: body.expires_at,
        });
        const key = answer.apiKey!;
        return {
          id: key.id,
          name: key.name,
          key: answer.key,
          key_prefix: key.keyPrefix,
          scopes: key.scopes,
          created_at: key.createdAt,
          expires_at: key.expiresAt ?? null,
        };
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
        return {
          items: answer.items.map((key) => ({
            id: key.id,
            name: key.name,
            key_prefix: key.keyPrefix,
            scopes: key.scopes,
            last_used_at: key.lastUsedAt ?? null,
            created_at: key.createdAt,
            expires_at: key.expiresAt ?? null,
          })),
        };
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
