import { z } from 'zod';
import { SCOPES } from '../../http/route.js';

/** bcrypt reads at most 72 bytes: longer passwords are refused rather than silently truncated. */
const password = z
  .string()
  .min(8, 'must be at least 8 characters')
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 72, 'must be at most 72 bytes');

export const registerBody = z.object({
  email: z.email('must be a valid e-mail address').max(254),
  password,
  full_name: z.string().max(200).optional(),
  company: z.string().max(200).optional(),
});

export const registerResponse = z.object({
  id: z.string(),
  email: z.string(),
  full_name: z.string(),
  tenant_id: z.string(),
  credits: z.number().int(),
  created_at: z.string(),
});

/** Asked by a browser app (the console): the refresh token goes to an HttpOnly cookie, not the body. */
const refreshCookie = z
  .boolean()
  .optional()
  .describe(
    'true: set the refresh token as an HttpOnly, SameSite=Strict cookie scoped to /api/v1/auth/refresh ' +
      'and leave it out of the answer (JSON bodies only)',
  );

export const loginBody = z.object({
  username: z.string().min(1, 'is required').describe('The e-mail address'),
  password: z.string().min(1, 'is required'),
  refresh_cookie: refreshCookie,
});

export const refreshBody = z.object({
  refresh_token: z
    .string()
    .min(1, 'is required')
    .optional()
    .describe('Required unless the refresh cookie is sent; when both are, this one is used'),
  refresh_cookie: refreshCookie,
});

export const logoutBody = z.object({ refresh_token: z.string().min(1, 'is required') });

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int().describe('Seconds'),
  refresh_token: z
    .string()
    .optional()
    .describe('Absent when the refresh token was set as a cookie (refresh_cookie, or a refresh by the cookie)'),
});

const userMe = z
  .object({
    id: z.string(),
    email: z.string(),
    full_name: z.string(),
    is_active: z.boolean(),
    created_at: z.string(),
    tenants: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })),
  })
  .describe('With an access token: the user and their tenants');

/** An API key sees itself only: never its creator's e-mail or other tenants (docs/design.md section 4). */
const apiKeyMe = z
  .object({
    type: z.literal('api_key'),
    id: z.string().describe('The key id (key_...)'),
    name: z.string(),
    key_prefix: z.string(),
    scopes: z.array(z.string()).describe("The effective scopes: the key's scopes its creator's role still grants"),
    tenant_id: z.string(),
    expires_at: z.string().nullable(),
  })
  .describe('With an API key: the key itself');

export const meResponse = z.union([userMe, apiKeyMe]);

export const logoutResponse = z.object({ success: z.boolean(), message: z.string() });

export const createApiKeyBody = z.object({
  name: z.string().trim().min(1, 'is required').max(100),
  scopes: z.array(z.enum(SCOPES)).min(1, 'must name at least one scope'),
  expires_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).optional(),
});

export const apiKeyCreatedResponse = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string().describe('The full secret; shown only in this response'),
  key_prefix: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string().nullable(),
});

export const apiKeyListResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      key_prefix: z.string(),
      scopes: z.array(z.string()),
      last_used_at: z.string().nullable(),
      created_at: z.string(),
      expires_at: z.string().nullable(),
    }),
  ),
});

export const keyIdParams = z.object({ key_id: z.string().min(1) });

export const revokeResponse = z.object({ success: z.boolean(), message: z.string() });
