import { Receiver, newTenant, startPlatform, suiteFixture, waitFor, type Http } from '@agentplatform/testing';

interface Delivered {
  type: string;
  tenant_id: string;
  data: Record<string, unknown>;
  receivedAt: number;
}

/**
 * Issue 34 item 2 through the gateway, with the real services, Kafka and the MongoDB stand-in: a
 * tenant whose workflow outputs more than an event may carry still gets its completed webhook
 * (without the output, `output_truncated: true`, the whole output at the execution's URL); an
 * output over the stored limit fails its node with `output_too_large`; and another tenant's events
 * keep arriving within seconds meanwhile.
 */
describe('execution outputs too large for an event', () => {
  const platform = suiteFixture(() =>
    startPlatform({
      services: ['identity', 'workflow', 'webhook'],
      serviceEnv: { webhook: { WEBHOOK_POLL_INTERVAL_MS: '100' } },
    }),
  );
  const receiver = suiteFixture(() => Receiver.start());

  function deliveredTo(path: string): Delivered[] {
    return receiver
      .to(path)
      .map((r) => ({ ...(JSON.parse(r.body) as Omit<Delivered, 'receivedAt'>), receivedAt: r.receivedAt }));
  }

  function executionEvent(path: string, type: string, executionId: string): Delivered | undefined {
    return deliveredTo(path).find((e) => e.type === type && e.data.execution_id === executionId);
  }

  async function tenantWithWebhook(path: string): Promise<Http> {
    const { http } = await newTenant(platform);
    const hook = await http.post('/api/v1/webhooks', { url: receiver.url(path), events: ['workflow.execution'] });
    expect(hook.status).toBe(201);
    return http;
  }

  async function createWorkflow(http: Http, expression: string): Promise<string> {
    const created = await http.post('/api/v1/workflows', {
      name: 'Triple',
      nodes: [{ id: 'triple', type: 'transform', config: { fields: { s: expression } } }],
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  it('delivers the completed event without an oversized output, fails an output over 1 MiB, and keeps another tenant on time', async () => {
    const a = await tenantWithWebhook('/a');
    const b = await tenantWithWebhook('/b');
    const tripled = await createWorkflow(a, 'input.s + input.s + input.s');
    const small = await createWorkflow(b, 'input.s');

    // 3 x 120,000 characters: over the 256 KiB an event carries, within the 1 MiB stored.
    const large = await a.post(`/api/v1/workflows/${tripled}/execute`, {
      input: { s: 'a'.repeat(120_000) },
      async: true,
    });
    // 3 x 400,000 characters (the probe): over the 1 MiB a node may output.
    const tooLarge = await a.post(`/api/v1/workflows/${tripled}/execute`, {
      input: { s: 'b'.repeat(400_000) },
      async: true,
    });
    expect([large.status, tooLarge.status]).toEqual([202, 202]);

    // The bystander runs right after, while A's runs finish and their events go out.
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const sentAt = Date.now();
      const run = await b.post(`/api/v1/workflows/${small}/execute`, { input: { s: `run ${i}` } });
      expect(run.status).toBe(200);
      expect(run.body.status).toBe('completed');
      const event = await waitFor(() => executionEvent('/b', 'workflow.execution.completed', run.body.execution_id), {
        timeoutMs: 10_000,
        what: `tenant B's completed event ${i}`,
      });
      expect(event.data).toMatchObject({ output: { s: `run ${i}` }, output_truncated: false });
      latencies.push(event.receivedAt - sentAt);
    }
    process.stdout.write(
      `OUTPUT-SIZES: tenant B's completed events arrived ${latencies.join(', ')} ms after its execute was sent\n`,
    );
    expect(Math.max(...latencies)).toBeLessThan(5_000);

    // A: the completed event, without the output, pointing at the execution that has it whole.
    const completed = await waitFor(
      () => executionEvent('/a', 'workflow.execution.completed', large.body.execution_id),
      { timeoutMs: 20_000, what: "tenant A's completed event" },
    );
    expect(completed.data).toMatchObject({
      workflow_id: tripled,
      execution_id: large.body.execution_id,
      output_truncated: true,
      execution_url: `/api/v1/workflows/${tripled}/executions/${large.body.execution_id}`,
    });
    expect(completed.data).not.toHaveProperty('output');
    const whole = await a.get(completed.data.execution_url as string);
    expect(whole.status).toBe(200);
    expect(whole.body.status).toBe('completed');
    expect(whole.body.output).toEqual({ s: 'a'.repeat(360_000) });

    // A: the run over 1 MiB failed at its node, and says why.
    const failed = await waitFor(() => executionEvent('/a', 'workflow.execution.failed', tooLarge.body.execution_id), {
      timeoutMs: 20_000,
      what: "tenant A's failed event",
    });
    expect(failed.data).toMatchObject({ failed_node_id: 'triple', error: expect.stringMatching(/output_too_large/) });
    const stored = await a.get(`/api/v1/workflows/${tripled}/executions/${tooLarge.body.execution_id}`);
    expect(stored.body.status).toBe('failed');
    expect(stored.body.node_executions[0]).toMatchObject({
      node_id: 'triple',
      status: 'failed',
      error: expect.stringMatching(/^output_too_large: the node's output is 1200008 bytes, over the limit of 1048576/),
      output: { error: { code: 'output_too_large', size_bytes: 1_200_008, limit_bytes: 1_048_576 } },
    });
  }, 120_000);
});
