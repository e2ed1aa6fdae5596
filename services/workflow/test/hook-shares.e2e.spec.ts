import { api, metricSum, newTenant, startPlatform, suiteFixture, waitFor } from '@agentplatform/testing';
import { hookIdOf, STARTUP_MS } from './workflows.support';

/**
 * An inbound hook is anonymous, but once the gateway has resolved it the request acts for its
 * workflow's tenant: its call to the workflow service takes a place of that tenant's share of the
 * gateway's places (`BACKEND_TENANT_SHARE`, half by default; here 2 of `BACKEND_MAX_IN_FLIGHT` 4).
 * So a tenant whose hooks are slow (`last_node` runs held by a delay) gets 429 past its share,
 * and another tenant's requests to the workflow service are still served.
 */
describe("a tenant's hooks and its share of the gateway's places", () => {
  const suite = suiteFixture(
    () =>
      startPlatform({ services: ['identity', 'workflow'], serviceEnv: { gateway: { BACKEND_MAX_IN_FLIGHT: '4' } } }),
    STARTUP_MS,
  );

  it("refuses a tenant's slow hooks past its share with 429 while another tenant is served", async () => {
    const platform = suite;
    const noisy = (await newTenant(platform)).http;
    const quiet = (await newTenant(platform)).http;
    const created = await noisy.post('/api/v1/workflows', {
      name: 'slow answer',
      nodes: [
        { id: 'hook', type: 'webhook', config: { response_mode: 'last_node' } },
        { id: 'wait', type: 'delay', config: { ms: 4_000 } },
      ],
      edges: [{ source: 'hook', target: 'wait' }],
    });
    expect(created.status).toBe(201);
    expect((await noisy.post(`/api/v1/workflows/${created.body.id}/resume`)).status).toBe(200);
    const hookUrl = `/hooks/${hookIdOf(created.body)}`;
    const anon = api(platform.url);
    const refusedByShare = () =>
      metricSum(platform.service('gateway'), 'gateway_backend_tenant_share_refused_total', 'target="workflow"');
    const before = await refusedByShare();

    const inFlight = () => metricSum(platform.service('gateway'), 'gateway_backend_in_flight', 'target="workflow"');

    // Two slow hooks, each sent once the one before holds its place (hooks of one turn would share
    // a call, and a place): they hold the noisy tenant's share.
    const hooks = [];
    for (let i = 0; i < 2; i++) {
      hooks.push(anon.post(hookUrl, { n: i }));
      await waitFor(async () => (await inFlight()) >= i + 1 || undefined, { what: `hook ${i} in flight` });
    }
    // Its next hooks are refused at once; the other tenant is served from the places left.
    for (let i = 2; i < 4; i++) hooks.push(await anon.post(hookUrl, { n: i }));
    const served = await quiet.get('/api/v1/workflows');
    expect(served.status).toBe(200);

    const answers = await Promise.all(hooks);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 429, 429]);
    for (const refused of answers.slice(2)) {
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body.message).toMatch(/this one was not started \(nothing was done\)/);
    }
    for (const done of answers.slice(0, 2)) expect(done.body.status).toBe('completed');
    expect(await refusedByShare()).toBe(before + 2);
    // Nothing ran for the refused hooks.
    const runs = await noisy.get(`/api/v1/workflows/${created.body.id}/executions`);
    expect(runs.body.items).toHaveLength(2);
  });
});
