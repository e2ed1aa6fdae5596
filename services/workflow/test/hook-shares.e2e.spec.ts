import { api, metricSum, newTenant, startPlatform, suiteFixture, waitFor, type Http } from '@agentplatform/testing';
import { hookIdOf, STARTUP_MS } from './workflows.support';

/**
 * An inbound hook is anonymous, but once the gateway has resolved it the request acts for its
 * workflow's tenant: its call to the workflow service takes a place of that tenant's share of the
 * gateway's places (`BACKEND_TENANT_SHARE`, half by default; here 2 of `BACKEND_MAX_IN_FLIGHT` 4),
 * and the last place (an eighth, at least one) is kept for tenants with no call in flight. So a
 * tenant whose hooks are slow (`last_node` runs held by a delay) gets 429 past its share, two such
 * tenants cannot take every place between them, and another tenant's requests to the workflow
 * service are still served.
 */
describe("a tenant's hooks and its share of the gateway's places", () => {
  const suite = suiteFixture(
    () =>
      startPlatform({ services: ['identity', 'workflow'], serviceEnv: { gateway: { BACKEND_MAX_IN_FLIGHT: '4' } } }),
    STARTUP_MS,
  );

  const inFlight = () => metricSum(suite.service('gateway'), 'gateway_backend_in_flight', 'target="workflow"');
  const refusedByShare = () =>
    metricSum(suite.service('gateway'), 'gateway_backend_tenant_share_refused_total', 'target="workflow"');

  /** A workflow of `http`'s tenant whose hook answers after a 4 s delay; its hook's URL. */
  async function slowHook(http: Http): Promise<{ url: string; workflowId: string }> {
    const created = await http.post('/api/v1/workflows', {
      name: 'slow answer',
      nodes: [
        { id: 'hook', type: 'webhook', config: { response_mode: 'last_node' } },
        { id: 'wait', type: 'delay', config: { ms: 4_000 } },
      ],
      edges: [{ source: 'hook', target: 'wait' }],
    });
    expect(created.status).toBe(201);
    expect((await http.post(`/api/v1/workflows/${created.body.id}/resume`)).status).toBe(200);
    return { url: `/hooks/${hookIdOf(created.body)}`, workflowId: created.body.id };
  }

  /**
   * Sends a slow hook and waits until the gateway holds `holding` places (it among them): hooks
   * sent in one turn would share a call, and a place. Its answer comes later.
   */
  async function holdPlace(url: string, n: number, holding: number) {
    const answer = api(suite.url).post(url, { n });
    await waitFor(async () => (await inFlight()) >= holding || undefined, { what: `hook ${n} in flight` });
    return { answer };
  }

  it("refuses a tenant's slow hooks past its share with 429 while another tenant is served", async () => {
    const noisy = (await newTenant(suite)).http;
    const quiet = (await newTenant(suite)).http;
    const hook = await slowHook(noisy);
    const anon = api(suite.url);
    const before = await refusedByShare();

    // Two slow hooks hold the noisy tenant's share.
    const held = [(await holdPlace(hook.url, 0, 1)).answer, (await holdPlace(hook.url, 1, 2)).answer];
    // Its next hooks are refused at once; the other tenant is served from the places left.
    const refusedAtOnce = [];
    for (let i = 2; i < 4; i++) refusedAtOnce.push(await anon.post(hook.url, { n: i }));
    const served = await quiet.get('/api/v1/workflows');
    expect(served.status).toBe(200);

    const answers = [...(await Promise.all(held)), ...refusedAtOnce];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 429, 429]);
    for (const refused of answers.slice(2)) {
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body.message).toMatch(/this one was not started \(nothing was done\)/);
    }
    for (const done of answers.slice(0, 2)) expect(done.body.status).toBe('completed');
    expect(await refusedByShare()).toBe(before + 2);
    // Nothing ran for the refused hooks.
    const runs = await noisy.get(`/api/v1/workflows/${hook.workflowId}/executions`);
    expect(runs.body.items).toHaveLength(2);
  });

  it('keeps the last place from two tenants that each hold part of the rest', async () => {
    const first = await slowHook((await newTenant(suite)).http);
    const second = await slowHook((await newTenant(suite)).http);
    const quiet = (await newTenant(suite)).http;
    const before = await refusedByShare();

    // The first tenant holds its share (2 places), the second one place: one place is left.
    const held = [
      (await holdPlace(first.url, 0, 1)).answer,
      (await holdPlace(first.url, 1, 2)).answer,
      (await holdPlace(second.url, 0, 3)).answer,
    ];
    // The second tenant is under its share, but the last place is kept for a tenant with none.
    const refused = await api(suite.url).post(second.url, { n: 1 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.message).toMatch(/kept for tenants with none; this one was not started/);
    // The third tenant, with nothing in flight, takes it.
    expect((await quiet.get('/api/v1/workflows')).status).toBe(200);

    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await refusedByShare()).toBe(before + 1);
  });
});
