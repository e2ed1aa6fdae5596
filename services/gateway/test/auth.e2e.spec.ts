import mongoose from 'mongoose';
import { SignJWT, generateKeyPair, importJWK, type JWK } from 'jose';
import { SecretBox } from '@agentplatform/service-kit';
import {
  api,
  createApiKey,
  login,
  registerUser,
  startPlatform,
  suiteFixture,
  uniqueEmail,
  waitFor,
  type RegisteredUser,
} from '@agentplatform/testing';

/** Register, login, refresh, me and API keys through the gateway, with identity as a real process. */
describe('authentication and keys', () => {
  const platform = suiteFixture(() => startPlatform({ services: ['identity'] }));
  let alice: RegisteredUser;

  beforeAll(async () => {
    alice = await registerUser(platform.url, { full_name: 'Alice Doe', company: 'Acme' });
  });

  describe('register', () => {
    it('creates a user with a tenant and welcome credits', async () => {
      const email = uniqueEmail('reg');
      const res = await api(platform.url).post('/api/v1/auth/register', {
        email,
        password: 'correct horse',
        full_name: 'Reg User',
        company: 'Reg Co',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^usr_/),
        email,
        full_name: 'Reg User',
        tenant_id: expect.stringMatching(/^ten_/),
        credits: 1000,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      });
      expect(JSON.stringify(res.body)).not.toContain('correct horse');
    });

    it('refuses a duplicate e-mail with 409', async () => {
      const res = await api(platform.url).post('/api/v1/auth/register', {
        email: alice.email.toUpperCase(),
        password: 'another-pass',
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('conflict');
    });

    it('answers validation errors with 422 naming the field', async () => {
      const bad = await api(platform.url).post('/api/v1/auth/register', { email: 'not-an-email', password: 'short' });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toBe('validation_error');
      expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'password']);
    });

    it('refuses a password over 72 bytes instead of truncating it', async () => {
      // 37 two-byte characters: 37 characters but 74 bytes.
      const res = await api(platform.url).post('/api/v1/auth/register', {
        email: uniqueEmail(),
        password: 'é'.repeat(37),
      });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: 'password', message: expect.stringContaining('72 bytes') }]);
    });

    it('answers a missing field in shape B under /v1', async () => {
      const res = await api(platform.url).post('/v1/auth/register', { password: 'long enough' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        success: false,
        error: {
          code: 'validation_error',
          message: expect.any(String),
          details: [{ field: 'email', reason: 'missing_required_field', message: 'is required' }],
        },
      });
    });
  });

  describe('login', () => {
    it('takes a form-urlencoded username and password and returns tokens', async () => {
      const res = await api(platform.url).post('/api/v1/auth/login', undefined, {
        form: { username: alice.email, password: alice.password },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 900,
        refresh_token: expect.stringMatching(/^rt_/),
      });
      const [header] = res.body.access_token.split('.');
      expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({
        alg: 'EdDSA',
        kid: expect.any(String),
      });
    });

    it('answers a wrong password and an unknown account with the same 401', async () => {
      const wrong = await api(platform.url).post('/api/v1/auth/login', undefined, {
        form: { username: alice.email, password: 'wrong-password' },
      });
      const unknown = await api(platform.url).post('/api/v1/auth/login', undefined, {
        form: { username: uniqueEmail('nobody'), password: 'whatever-123' },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ error: 'unauthorized', message: 'Invalid e-mail or password' });
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual(wrong.body);
    });

    it('locks an account after 5 failed logins, even for the right password', async () => {
      const bob = await registerUser(platform.url);
      const attempt = (password: string) =>
        api(platform.url).post('/api/v1/auth/login', undefined, { form: { username: bob.email, password } });
      for (let i = 0; i < 4; i += 1) expect((await attempt('wrong-password')).status).toBe(401);
      const fifth = await attempt('wrong-password');
      expect(fifth.status).toBe(429);
      const locked = await attempt(bob.password);
      expect(locked.status).toBe(429);
      expect(locked.body.error).toBe('rate_limit_exceeded');
      expect(locked.body.retry_after).toBeGreaterThan(800);
      expect(Number(locked.headers.get('retry-after'))).toBe(locked.body.retry_after);
    });

    it('refuses a JSON body on the form endpoint only when it is neither form nor JSON (415)', async () => {
      const res = await api(platform.url).post('/api/v1/auth/login', undefined, {
        raw: `username=${alice.email}&password=x`,
        headers: { 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(415);
      expect(res.body.error).toBe('unsupported_media_type');
    });
  });

  describe('access tokens', () => {
    it('shows the current user and their tenants on /auth/me', async () => {
      const res = await api(platform.url, alice.accessToken).get('/api/v1/auth/me');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: alice.userId,
        email: alice.email,
        full_name: 'Alice Doe',
        is_active: true,
        created_at: expect.any(String),
        tenants: [{ id: alice.tenantId, name: 'Acme', role: 'owner' }],
      });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('answers 401 without a token, with garbage, and with a forged signature', async () => {
      expect((await api(platform.url).get('/api/v1/auth/me')).status).toBe(401);
      expect((await api(platform.url, 'not.a.jwt').get('/api/v1/auth/me')).status).toBe(401);
      const [header, payload, signature] = alice.accessToken.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const tampered = Buffer.from(JSON.stringify({ ...claims, sub: 'usr_someone_else' })).toString('base64url');
      const forged = await api(platform.url, `${header}.${tampered}.${signature}`).get('/api/v1/auth/me');
      expect(forged.status).toBe(401);
      expect(forged.body).toEqual({ error: 'unauthorized', message: 'Invalid access token' });

      // A well-formed token signed by a key identity never issued, claiming identity's key id.
      const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString());
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const foreign = await new SignJWT({ tid: alice.tenantId })
        .setProtectedHeader({ alg: 'EdDSA', kid })
        .setSubject(alice.userId)
        .setIssuer(claims.iss)
        .setAudience(claims.aud)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
      expect((await api(platform.url, foreign).get('/api/v1/auth/me')).status).toBe(401);
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', kid })).toString('base64url')}.${payload}.`;
      expect((await api(platform.url, unsigned).get('/api/v1/auth/me')).status).toBe(401);
    });

    it('answers 401 for an expired token signed with the real key', async () => {
      // Sign with identity's own stored key, so only the expiry is wrong.
      const connection = await mongoose
        .createConnection(platform.mongoUri, { dbName: platform.database('identity') })
        .asPromise();
      try {
        const stored = await connection.collection('signing_keys').find().sort({ generation: -1 }).limit(1).next();
        // The private half is sealed with the platform's DATA_ENCRYPTION_KEY, bound to the key id.
        const box = SecretBox.fromKeyring(platform.dataEncryptionKey);
        const privateJwk = JSON.parse(
          box.open(stored!.private_jwk.data, `signing_key:${stored!._id}:private_jwk`),
        ) as JWK;
        const claims = JSON.parse(Buffer.from(alice.accessToken.split('.')[1], 'base64url').toString());
        const now = Math.floor(Date.now() / 1000);
        const expired = await new SignJWT({ tid: alice.tenantId })
          .setProtectedHeader({ alg: 'EdDSA', kid: String(stored!._id) })
          .setSubject(alice.userId)
          .setIssuer(claims.iss)
          .setAudience(claims.aud)
          .setIssuedAt(now - 3600)
          .setExpirationTime(now - 60)
          .sign(await importJWK(privateJwk, 'EdDSA'));
        const res = await api(platform.url, expired).get('/api/v1/auth/me');
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'unauthorized', message: 'Access token has expired' });
      } finally {
        await connection.close();
      }
    });
  });

  describe('refresh', () => {
    it('rotates the refresh token, and reusing an old one revokes the whole family', async () => {
      const session = await login(platform.url, alice.email, alice.password);
      const first = await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: session.refreshToken });
      expect(first.status).toBe(200);
      expect(first.body.refresh_token).not.toBe(session.refreshToken);
      expect((await api(platform.url, first.body.access_token).get('/api/v1/auth/me')).status).toBe(200);

      // Within 5 s a second use is a race of one client (refused, family kept); later it is a replay.
      await new Promise((resolve) => setTimeout(resolve, 5_200));
      const reuse = await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: session.refreshToken });
      expect(reuse.status).toBe(401);
      // The legitimate holder's newer token is gone too: the family is revoked.
      const newest = await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: first.body.refresh_token });
      expect(newest.status).toBe(401);
      // Other sessions of the same user are unaffected.
      const other = await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: alice.refreshToken });
      expect(other.status).toBe(200);
      alice.refreshToken = other.body.refresh_token;
    });

    it('answers 422 for a missing refresh_token and 401 for an unknown one', async () => {
      expect((await api(platform.url).post('/api/v1/auth/refresh', {})).status).toBe(422);
      expect((await api(platform.url).post('/api/v1/auth/refresh', { refresh_token: 'rt_nope' })).status).toBe(401);
    });
  });

  describe('API keys', () => {
    it('creates a key shown once, then lists only its prefix', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const created = await api(platform.url, alice.accessToken).post('/api/v1/auth/api-keys', {
        name: 'CI key',
        scopes: ['agents:read', 'workflows:execute'],
        expires_at: expiresAt,
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^key_/),
        name: 'CI key',
        key: expect.stringMatching(/^apk_[A-Za-z0-9]{40}$/),
        key_prefix: created.body.key.slice(0, 12),
        scopes: ['agents:read', 'workflows:execute'],
        created_at: expect.any(String),
        expires_at: expiresAt,
      });
      const list = await api(platform.url, alice.accessToken).get('/api/v1/auth/api-keys');
      expect(list.status).toBe(200);
      const listed = list.body.items.find((k: { id: string }) => k.id === created.body.id);
      expect(listed).toEqual({
        id: created.body.id,
        name: 'CI key',
        key_prefix: created.body.key.slice(0, 12),
        scopes: ['agents:read', 'workflows:execute'],
        last_used_at: null,
        created_at: created.body.created_at,
        expires_at: expiresAt,
      });
      expect(list.text).not.toContain(created.body.key);
    });

    it('validates the key request with 422 naming the field', async () => {
      const res = await api(platform.url, alice.accessToken).post('/api/v1/auth/api-keys', {
        name: 'bad',
        scopes: ['agents:read', 'root:everything'],
        expires_at: new Date(Date.now() - 1000).toISOString(),
      });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('scopes[1]');
      const past = await api(platform.url, alice.accessToken).post('/api/v1/auth/api-keys', {
        name: 'past',
        scopes: ['agents:read'],
        expires_at: new Date(Date.now() - 1000).toISOString(),
      });
      expect(past.status).toBe(422);
      expect(past.body.details).toEqual([{ field: 'expires_at', message: 'must be in the future' }]);
    });

    it('authenticates with a key, records last_used_at, and a key cannot manage keys', async () => {
      const key = await createApiKey(platform.url, alice.accessToken, ['agents:read']);
      const me = await api(platform.url, key.key).get('/api/v1/auth/me');
      expect(me.status).toBe(200);
      // The key describes itself, never its creator's e-mail or other tenants.
      expect(me.body).toEqual({
        type: 'api_key',
        id: key.id,
        name: 'test key',
        key_prefix: key.key.slice(0, 12),
        scopes: ['agents:read'],
        tenant_id: alice.tenantId,
        expires_at: null,
      });

      const create = await api(platform.url, key.key).post('/api/v1/auth/api-keys', {
        name: 'escalate',
        scopes: ['agents:read'],
      });
      expect(create.status).toBe(403);
      expect(create.body.error).toBe('forbidden');
      expect((await api(platform.url, key.key).get('/api/v1/auth/api-keys')).status).toBe(403);
      expect((await api(platform.url, key.key).delete(`/api/v1/auth/api-keys/${key.id}`)).status).toBe(403);

      const list = await api(platform.url, alice.accessToken).get('/api/v1/auth/api-keys');
      expect(list.body.items.find((k: { id: string }) => k.id === key.id).last_used_at).toEqual(expect.any(String));
    });

    it('answers 403 when a key lacks the route scope', async () => {
      const key = await createApiKey(platform.url, alice.accessToken, ['agents:read']);
      const res = await api(platform.url, key.key).get('/api/v1/billing/credits');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'forbidden', message: 'Missing scope billing:read' });
      const billing = await createApiKey(platform.url, alice.accessToken, ['billing:read']);
      expect((await api(platform.url, billing.key).get('/api/v1/billing/credits')).status).toBe(200);
    });

    it('answers 403 for a read-only key on a write route', async () => {
      const key = await createApiKey(platform.url, alice.accessToken, ['agents:read', 'workflows:read']);
      const agent = await api(platform.url, key.key).post('/api/v1/agents', { name: 'Bot', type: 'assistant' });
      expect(agent.status).toBe(403);
      expect(agent.body).toEqual({ error: 'forbidden', message: 'Missing scope agents:write' });
      const workflow = await api(platform.url, key.key).post('/api/v1/workflows', {
        name: 'Flow',
        nodes: [],
        edges: [],
      });
      expect(workflow.status).toBe(403);
      expect(workflow.body).toEqual({ error: 'forbidden', message: 'Missing scope workflows:write' });
    });

    it('stops accepting a revoked key within seconds', async () => {
      const key = await createApiKey(platform.url, alice.accessToken, ['billing:read']);
      expect((await api(platform.url, key.key).get('/api/v1/billing/credits')).status).toBe(200);
      const revoked = await api(platform.url, alice.accessToken).delete(`/api/v1/auth/api-keys/${key.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ success: true, message: 'API key revoked' });
      const started = Date.now();
      const refused = await waitFor(
        async () => {
          const res = await api(platform.url, key.key).get('/api/v1/billing/credits');
          return res.status === 401 ? res : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 250, what: 'revoked key refused' },
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(refused.body.error).toBe('unauthorized');
      const list = await api(platform.url, alice.accessToken).get('/api/v1/auth/api-keys');
      expect(list.body.items.map((k: { id: string }) => k.id)).not.toContain(key.id);
      expect((await api(platform.url, alice.accessToken).delete(`/api/v1/auth/api-keys/${key.id}`)).status).toBe(404);
    });

    it('answers 401 for an unknown key', async () => {
      const res = await api(platform.url, `apk_${'x'.repeat(40)}`).get('/api/v1/auth/me');
      expect(res.status).toBe(401);
    });
  });

  describe('tenants', () => {
    it("answers 403 for another tenant's tenant_id, with a token or a key", async () => {
      const mallory = await registerUser(platform.url);
      const res = await api(platform.url, mallory.accessToken).get(
        `/api/v1/billing/credits?tenant_id=${alice.tenantId}`,
      );
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden');
      const key = await createApiKey(platform.url, mallory.accessToken, ['billing:read']);
      expect((await api(platform.url, key.key).get(`/api/v1/billing/credits?tenant_id=${alice.tenantId}`)).status).toBe(
        403,
      );
      expect(
        (await api(platform.url, mallory.accessToken).get(`/api/v1/billing/credits?tenant_id=ten_does_not_exist`))
          .status,
      ).toBe(403);
      const own = await api(platform.url, mallory.accessToken).get(
        `/api/v1/billing/credits?tenant_id=${mallory.tenantId}`,
      );
      expect(own.status).toBe(200);
    });

    it("cannot revoke another tenant's key (404)", async () => {
      const key = await createApiKey(platform.url, alice.accessToken, ['agents:read']);
      const mallory = await registerUser(platform.url);
      expect((await api(platform.url, mallory.accessToken).delete(`/api/v1/auth/api-keys/${key.id}`)).status).toBe(404);
      expect((await api(platform.url, key.key).get('/api/v1/auth/me')).status).toBe(200);
    });
  });
});
