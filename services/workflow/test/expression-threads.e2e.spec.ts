import { MongoClient } from 'mongodb';
import { startPlatform, type Platform } from '@agentplatform/testing';
import { tenantOnPlan } from './schedules.support';
import { createWorkflow, percentile } from './workflows.support';

/**
 * Expression threads are shared fairly (docs/design.md section 5; issue 34, item 9): two tenants
 * that flood the CEL sandbox's two threads with expression bombs do not make a third tenant's
 * expressions wait behind them. The bystander's transform uses a macro, so it runs on a sandbox
 * thread too (an expression under the static bound would run inline and prove nothing).
 */
jest.setTimeout(180_000);

const LIST = `[${Array.from({ length: 300 }, (_, i) => i).join(',')}]`;
/** Three nested macros over 300-element lists: stopped at its 50 ms budget, then its thread restarts. */
const BOMB = `${LIST}.all(x, ${LIST}.all(y, ${LIST}.all(z, true)))`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('expression threads shared between tenants', () => {
  let platform: Platform;
  let mongo: MongoClient;

  beforeAll(async () => {
    platform = await startPlatform({
      services: ['identity', 'workflow'],
      serviceEnv: { identity: { WELCOME_CREDITS: '5000' }, workflow: { CEL_WORKERS: '2' } },
    });
    mongo = await MongoClient.connect(platform.mongoUri);
  }, 120_000);

  afterAll(async () => {
    await mongo?.close();
    await platform?.stop();
  });

  it("keeps a tenant's sandboxed transform fast while two tenants flood the threads with bombs", async () => {
    // On the plan without a request rate limit: the attack is the sandbox, not the gateway.
    const attackers = [
      (await tenantOnPlan(platform, mongo, 'enterprise')).http,
      (await tenantOnPlan(platform, mongo, 'enterprise')).http,
    ];
    const bystander = (await tenantOnPlan(platform, mongo, 'enterprise')).http;
    const bombs = await Promise.all(
      attackers.map((http) =>
        createWorkflow(http, {
          name: 'bomb',
          nodes: [{ id: 'b', type: 'transform', config: { fields: { never: BOMB } } }],
        }),
      ),
    );
    const transform = await createWorkflow(bystander, {
      name: 'macro transform',
      nodes: [{ id: 't', type: 'transform', config: { fields: { m: '[1, 2, 3].map(x, x * input.n)' } } }],
    });
    /** Runs the transform; answers how long its node took (its wait for a sandbox thread included). */
    const runTransform = async (n: number): Promise<number> => {
      const res = await bystander.post(`/api/v1/workflows/${transform}/execute`, { input: { n } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'completed', output: { m: [n, 2 * n, 3 * n] } });
      return res.body.node_executions[0].duration_ms as number;
    };
    for (let i = 0; i < 3; i++) await runTransform(i);
    const alone: number[] = [];
    for (let i = 0; i < 20; i++) alone.push(await runTransform(i));

    // Each attacker keeps four bombs in flight at all times (each execute waits for its run's end).
    let attacking = true;
    let fired = 0;
    const attack = Promise.all(
      attackers.flatMap((http, i) =>
        Array.from({ length: 4 }, async () => {
          while (attacking) {
            const res = await http.post(`/api/v1/workflows/${bombs[i]}/execute`, { input: {} });
            expect(res.body.error).toMatch(/expression_budget_exceeded/);
            fired += 1;
          }
        }),
      ),
    );
    // Until both attackers have spent enough thread time to be heavy.
    await sleep(4_000);
    const attacked: number[] = [];
    for (let i = 0; i < 20; i++) attacked.push(await runTransform(i));
    attacking = false;
    await attack;

    const [p50Alone, p90Alone] = [percentile(alone, 50), percentile(alone, 90)];
    const [p50Attacked, p90Attacked] = [percentile(attacked, 50), percentile(attacked, 90)];
    process.stdout.write(
      `sandboxed transform node p50/p90 alone ${p50Alone}/${p90Alone} ms, ` +
        `beside ${fired} bombs of two tenants ${p50Attacked}/${p90Attacked} ms\n`,
    );
    // Waiting behind a bomb costs its budget and a thread restart (hundreds of ms) every time.
    expect(p50Attacked).toBeLessThan(p50Alone * 3 + 50);
    expect(p90Attacked).toBeLessThan(p90Alone * 3 + 150);
  });
});
