import { identityV1 } from '@agentplatform/contracts';
import { identityCreditsClient, type CreditsClient } from './credits-client.js';
import { InsufficientCreditsError } from './errors.js';
import { openChannel } from './grpc-client.js';
import { createGrpcServer } from './grpc-server.js';
import { createLogger } from './logger.js';
import { Metrics } from './metrics.js';

/**
 * An identity replica from before the batch calls, over real gRPC: ReserveMany and SettleMany
 * answer UNIMPLEMENTED, as a server without them does. A workflow replica rolled out first must
 * still charge its runs, one call per item, each answered as the batch would answer it.
 */
describe('batch credit calls against an identity replica without them', () => {
  const { server } = createGrpcServer({ logger: createLogger('test', 'silent'), metrics: new Metrics('test') });
  const reserved: string[] = [];
  const settled: string[] = [];
  let credits: CreditsClient;
  let channel: ReturnType<typeof openChannel>;

  beforeAll(async () => {
    // Identity's service with only the single calls: gRPC answers UNIMPLEMENTED for the others.
    const { reserve, settle } = identityV1.IdentityServiceDefinition.methods;
    const older = { ...identityV1.IdentityServiceDefinition, methods: { reserve, settle } };
    server.add(older, {
      async reserve(req: identityV1.ReserveRequest): Promise<identityV1.ReserveResponse> {
        if (req.tenantId === 'ten_poor') throw new InsufficientCreditsError();
        reserved.push(req.operationId);
        return { balance: 10, entryId: `ent_${req.operationId}`, reserved: req.amount, expiresAt: '' };
      },
      async settle(req: identityV1.SettleRequest): Promise<identityV1.SettleResponse> {
        settled.push(req.operationId);
        return { balance: 9, charged: req.used, returned: 0, released: false };
      },
    });
    const port = await server.listen('127.0.0.1:0');
    channel = openChannel(`127.0.0.1:${port}`);
    credits = identityCreditsClient(channel, {
      deadlineMs: 2_000,
      metrics: new Metrics('t'),
    });
  });

  afterAll(() => {
    channel.close();
    server.forceShutdown();
  });

  it('reserves and settles item by item, each refusal kept to its own item', async () => {
    const item = (tenantId: string, operationId: string) => ({ tenantId, operationId, amount: 1, description: 'run' });
    const answers = await credits.reserveMany([item('ten_a', 'run:1'), item('ten_poor', 'run:2')]);
    expect(answers[0]).toBeUndefined();
    expect(answers[1]).toMatchObject({ code: 'insufficient_credits' });
    expect(reserved).toEqual(['run:1']);

    expect(
      await credits.settleMany([{ tenantId: 'ten_a', operationId: 'run:1', used: 1, description: 'run' }]),
    ).toEqual([undefined]);
    expect(settled).toEqual(['run:1']);
  });
});
