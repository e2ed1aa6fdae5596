import { randomBytes } from 'node:crypto';
import { api, registerUser, startPlatform, startTenantPlatform, suiteFixture, waitFor } from '@agentplatform/testing';

const OPERATOR_TOKEN = randomBytes(32).toString('base64url');

/**
 * Credits are bought, not minted (docs/design.md section 5): tenants buy for themselves only in
 * self-service mode; otherwise an operator grants them with the operator token, and the grant
 * is the same ledger entry and event as a purchase.
 */
describe('billing modes', () => {
  describe('without self-service, with an operator token', () => {
    const suite = suiteFixture(() =>
      startTenantPlatform(
        {
          services: ['identity'],
          serviceEnv: { identity: { BILLING_SELF_SERVICE: 'false' }, gateway: { OPERATOR_TOKEN } },
        },
        'billing-operator',
      ),
    );
    const grantPath = (tenantId: string) => `/api/v1/operator/tenants/${tenantId}/credits`;

    it("refuses an owner's purchase with 403 and adds nothing", async () => {
      const res = await suite.http.post('/api/v1/billing/purchases', { credits: 500 });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'forbidden', message: expect.stringMatching(/operator grants them/) });
      expect((await suite.http.get('/api/v1/billing/credits')).body.balance).toBe(1000);
    });

    it('an operator grant adds a purchase entry and fires billing.purchase.completed, once per key', async () => {
      const operator = api(suite.platform.url, OPERATOR_TOKEN);
      const headers = { 'idempotency-key': 'grant-0001' };
      const res = await operator.post(grantPath(suite.tenantId), { credits: 250 }, { headers });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^led_/),
        credits: 250,
        balance: 1250,
        created_at: expect.any(String),
      });
      const retry = await operator.post(grantPath(suite.tenantId), { credits: 250 }, { headers });
      expect(retry.status).toBe(201);
      expect(retry.body.id).toBe(res.body.id);
      const credits = await suite.http.get('/api/v1/billing/credits');
      expect(credits.body.balance).toBe(1250);
      expect(credits.body.ledger[0]).toMatchObject({ type: 'purchase', amount: 250, description: 'Operator grant' });
      const event = await waitFor(
        () => suite.tap.find('billing.purchase.completed', (e) => e.tenant_id === suite.tenantId),
        { timeoutMs: 30_000, what: 'billing.purchase.completed' },
      );
      expect(event.data).toEqual({ purchase_id: res.body.id, credits: 250, balance: 1250 });
      // An unknown tenant is named as such.
      const none = await operator.post(grantPath('ten_none'), { credits: 1 });
      expect(none.status).toBe(404);
    });

    it('refuses a wrong, missing or tenant credential with 401, and limits guesses per address', async () => {
      const user = await registerUser(suite.platform.url);
      const attempts = [
        await api(suite.platform.url, `${OPERATOR_TOKEN}x`).post(grantPath(user.tenantId), { credits: 5 }),
        await api(suite.platform.url).post(grantPath(user.tenantId), { credits: 5 }),
        // A tenant owner's own access token is no operator token.
        await api(suite.platform.url, user.accessToken).post(grantPath(user.tenantId), { credits: 5 }),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'unauthorized', message: 'Invalid operator token' });
      }
      const guesses = [];
      for (let i = 0; i < 25; i++) {
        guesses.push(
          (await api(suite.platform.url, `guess-${i}`).post(grantPath(user.tenantId), { credits: 5 })).status,
        );
      }
      expect(guesses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5);
      expect((await api(suite.platform.url, user.accessToken).get('/api/v1/billing/credits')).body.balance).toBe(1000);
    });
  });

  describe('self-service, without an operator token (npm start)', () => {
    const platform = suiteFixture(() => startPlatform({ services: ['identity'] }));

    it('lets the owner buy, and serves no operator route', async () => {
      const user = await registerUser(platform.url);
      const bought = await api(platform.url, user.accessToken).post('/api/v1/billing/purchases', { credits: 5 });
      expect(bought.status).toBe(201);
      expect(bought.body.balance).toBe(1005);
      const grant = await api(platform.url, 'x'.repeat(40)).post(`/api/v1/operator/tenants/${user.tenantId}/credits`, {
        credits: 5,
      });
      expect(grant.status).toBe(404);
      const document = await api(platform.url).get('/api/v1/openapi.json');
      expect(Object.keys(document.body.paths).some((path) => path.startsWith('/operator'))).toBe(false);
    });
  });
});
