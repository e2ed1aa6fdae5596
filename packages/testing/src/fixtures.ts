import { randomBytes } from 'node:crypto';
import { api, request } from './http.js';
import type { Platform } from './platform.js';

export interface RegisteredUser {
  email: string;
  password: string;
  userId: string;
  tenantId: string;
  accessToken: string;
  refreshToken: string;
}

export interface RegisterOverrides {
  email?: string;
  password?: string;
  full_name?: string;
  company?: string;
}

function expectStatus(what: string, res: { status: number; text: string }, status: number): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text}`);
}

/** A unique e-mail address per call, so suites never collide on the unique index. */
export function uniqueEmail(label = 'user'): string {
  return `${label}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}@example.com`;
}

/** Logs a user in through the gateway (form-urlencoded, as the API reference says). */
export async function login(
  baseUrl: string,
  email: string,
  password: string,
): Promise<{ accessToken: string; refreshToken: string }> {
  const res = await request(baseUrl, 'POST', '/api/v1/auth/login', undefined, { form: { username: email, password } });
  expectStatus('login', res, 200);
  return { accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
}

/** Registers a user (which creates their tenant) through the gateway and logs them in. */
export async function registerUser(baseUrl: string, overrides: RegisterOverrides = {}): Promise<RegisteredUser> {
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? `pw-${randomBytes(8).toString('hex')}`;
  const res = await request(baseUrl, 'POST', '/api/v1/auth/register', {
    email,
    password,
    full_name: overrides.full_name ?? 'Test User',
    company: overrides.company ?? 'Test Co',
  });
  expectStatus('register', res, 201);
  const tokens = await login(baseUrl, email, password);
  return { email, password, userId: res.body.id, tenantId: res.body.tenant_id, ...tokens };
}

/** Creates an API key with the given scopes using a user's access token. */
export async function createApiKey(
  baseUrl: string,
  accessToken: string,
  scopes: string[],
  name = 'test key',
): Promise<{ id: string; key: string }> {
  const res = await request(baseUrl, 'POST', '/api/v1/auth/api-keys', { name, scopes }, { token: accessToken });
  expectStatus('create API key', res, 201);
  return { id: res.body.id, key: res.body.key };
}

export type Http = ReturnType<typeof api>;

/** A registered user (their own tenant) and an HTTP client carrying their access token. */
export async function newTenant(platform: Pick<Platform, 'url'>): Promise<{ user: RegisteredUser; http: Http }> {
  const user = await registerUser(platform.url);
  return { user, http: api(platform.url, user.accessToken) };
}

/** A memory as agent-memory stores it (the fields its reads and quota counts look at). */
export type SeededMemory = {
  _id: string;
  tenant_id: string;
  agent_id: string;
  memory_type: 'semantic';
  content: string;
  metadata: Record<string, unknown>;
  merged_from: string[];
  created_at: Date;
  updated_at: Date;
};

/**
 * Writes `count` semantic memories of an agent straight into agent-memory's `memories` collection
 * (the caller's driver handle): a long history without the API's cost, for quota tests.
 */
export async function seedMemories(
  memories: { insertMany(docs: SeededMemory[]): Promise<unknown> },
  tenantId: string,
  agentId: string,
  count: number,
): Promise<void> {
  const now = new Date();
  const docs = Array.from({ length: count }, (_, i): SeededMemory => ({
    _id: `mem_seed_${agentId}_${i}`,
    tenant_id: tenantId,
    agent_id: agentId,
    memory_type: 'semantic',
    content: `seeded memory ${i}`,
    metadata: {},
    merged_from: [],
    created_at: now,
    updated_at: now,
  }));
  await memories.insertMany(docs);
}
