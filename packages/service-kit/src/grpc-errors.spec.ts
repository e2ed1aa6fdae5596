import type { Server } from 'nice-grpc';
import { currentRequestId, runWithContext } from './context';
import { DomainError, ValidationError } from './errors';
import { createGrpcClient, openChannel } from './grpc-client';
import { createGrpcServer } from './grpc-server';
import { unaryHealthMethod } from './health-method.support';
import { createLogger } from './logger';
import { Metrics } from './metrics';

/** A one-method service for the test. */
const TestDefinition = {
  name: 'Test',
  fullName: 'agentplatform.test.Test',
  methods: { fail: unaryHealthMethod('Fail') },
} as const;

describe('errors and request ids across real gRPC', () => {
  let server: Server;
  let client: ReturnType<typeof createGrpcClient<typeof TestDefinition>>;
  let thrown: () => unknown;
  let delayMs = 0;
  let seenRequestId: string | undefined;
  let seenAfterWait: string | undefined;
  const seenPairs: Array<[string | undefined, string | undefined]> = [];

  beforeAll(async () => {
    ({ server } = createGrpcServer({ logger: createLogger('test', 'silent'), metrics: new Metrics('test') }));
    server.add(TestDefinition, {
      async fail() {
        const before = currentRequestId();
        seenRequestId = before;
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        seenAfterWait = currentRequestId();
        seenPairs.push([before, seenAfterWait]);
        throw thrown();
      },
    });
    const port = await server.listen('127.0.0.1:0');
    client = createGrpcClient(TestDefinition, openChannel(`127.0.0.1:${port}`), { deadlineMs: 2_000 });
  });

  afterAll(async () => {
    await server.shutdown();
  });

  async function callFailing(): Promise<unknown> {
    try {
      await client.fail({ service: '' });
    } catch (error) {
      return error;
    }
    throw new Error('the call did not fail');
  }

  it('turns a validation error back into the same DomainError with its field details', async () => {
    thrown = () => new ValidationError([{ field: 'nodes[2].config.rules[0].if', message: 'does not parse' }]);
    const error = await callFailing();
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      code: 'validation_error',
      message: 'Request validation failed',
      details: [{ field: 'nodes[2].config.rules[0].if', message: 'does not parse' }],
    });
  });

  it('keeps the platform code where the gRPC status alone is ambiguous', async () => {
    thrown = () => new DomainError('insufficient_credits', 'No credits left');
    expect(await callFailing()).toMatchObject({ code: 'insufficient_credits', message: 'No credits left' });
    thrown = () => new DomainError('rate_limit_exceeded', 'Slow down', [], 7);
    expect(await callFailing()).toMatchObject({ code: 'rate_limit_exceeded', retryAfter: 7 });
  });

  it('answers an unexpected error as internal_error with an id, never its message or stack', async () => {
    thrown = () => new Error('secret connection string mongodb://user:pass@host');
    const error = (await callFailing()) as DomainError;
    expect(error.code).toBe('internal_error');
    expect(error.message).toMatch(/^Internal error \(err_[0-9A-Z]{26}\)$/);
    expect(error.message).not.toMatch(/secret|mongodb/);
  });

  it('carries the caller’s request id into the service', async () => {
    thrown = () => new DomainError('not_found', 'Agent not found');
    await runWithContext({ requestId: 'req-abc' }, callFailing);
    expect(seenRequestId).toBe('req-abc');
    expect(seenAfterWait).toBe('req-abc');
  });

  it('keeps each call’s request id in the handler across its awaits when calls overlap', async () => {
    thrown = () => new DomainError('not_found', 'Agent not found');
    delayMs = 30;
    seenPairs.length = 0;
    try {
      const ids = ['req-1', 'req-2', 'req-3'];
      await Promise.all(ids.map((requestId) => runWithContext({ requestId }, callFailing)));
      expect(seenPairs).toHaveLength(3);
      for (const [before, after] of seenPairs) expect(after).toBe(before);
      expect(seenPairs.map(([before]) => before).sort()).toEqual(ids);
    } finally {
      delayMs = 0;
    }
  });

  it('still lets the caller cancel a call that has a deadline, and leaves stack traces as they were', async () => {
    thrown = () => new DomainError('not_found', 'too late');
    // The server answers after 2 s; the abort at 50 ms must end the call long before, even late.
    delayMs = 2_000;
    const limit = Error.stackTraceLimit;
    try {
      const controller = new AbortController();
      const pending = client.fail({ service: '' }, { signal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(Error.stackTraceLimit).toBe(limit);
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      const error = await pending;
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(error).toMatchObject({ name: 'AbortError' });
      expect(new Error('after').stack).toMatch(/grpc-errors\.spec/);
    } finally {
      delayMs = 0;
    }
  });

  it('answers a database it cannot reach as service_unavailable, never internal_error', async () => {
    thrown = () =>
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:27017'), { name: 'MongoServerSelectionError' });
    const error = (await callFailing()) as DomainError;
    expect(error).toMatchObject({ code: 'service_unavailable', retryAfter: 2 });
    expect(error.message).not.toMatch(/10\.0\.0\.7|27017|Mongo/);
  });

  it('answers a missed deadline as service_unavailable naming no service or method', async () => {
    thrown = () => new DomainError('not_found', 'too late');
    delayMs = 500;
    try {
      await client.fail({ service: '' }, { deadline: Date.now() + 100 });
      throw new Error('the call did not fail');
    } catch (error) {
      expect(error).toMatchObject({ code: 'service_unavailable', retryAfter: 2 });
      expect((error as Error).message).not.toMatch(/agentplatform|Test|Fail/);
    } finally {
      delayMs = 0;
    }
  });
});

describe('a backend nobody answers on', () => {
  it('is service_unavailable with a retry hint and no address or method in the message', async () => {
    const client = createGrpcClient(TestDefinition, openChannel('127.0.0.1:1'), { deadlineMs: 2_000 });
    const error = await client.fail({ service: '' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'service_unavailable', retryAfter: 2 });
    expect((error as Error).message).not.toMatch(/127\.0\.0\.1|agentplatform|Fail/);
  });
});
