import { fixKafkajsIdleLoop } from './kafkajs-idle-fix.js';

// The real kafkajs class the fix replaces a method of.
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (options: object) => {
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: object): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer | null; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
};

const quietLogger = { debug: () => undefined, warn: () => undefined, error: () => undefined, info: () => undefined };

function queue(maxInFlightRequests: number) {
  return new RequestQueue({
    maxInFlightRequests,
    requestTimeout: 10_000,
    clientId: 'spec',
    broker: 'spec:9092',
    logger: quietLogger,
  });
}

/** A request as kafkajs' Connection pushes it; `sent` records when its bytes would go out. */
function request(correlationId: number, sent: number[]) {
  return {
    entry: {
      correlationId,
      apiKey: 1,
      apiName: 'Fetch',
      apiVersion: 11,
      resolve: () => undefined,
      reject: () => undefined,
    },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

describe('the kafkajs idle-loop fix', () => {
  beforeAll(() => {
    expect(fixKafkajsIdleLoop()).toBe(true);
  });

  it('arms no timer once nothing waits (kafkajs 2.2.4 re-armed one at once, forever)', () => {
    const q = queue(1);
    const sent: number[] = [];
    q.push(request(1, sent));
    q.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    expect(sent).toEqual([1]);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('still sends a request that waited for an in-flight one as soon as that one is answered', () => {
    const q = queue(1);
    const sent: number[] = [];
    q.push(request(1, sent));
    q.push(request(2, sent));
    expect(sent).toEqual([1]);
    q.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    expect(sent).toEqual([1, 2]);
    q.destroy();
  });

  it('still sends a request held back by broker throttling once the throttle ends', async () => {
    const q = queue(10);
    const sent: number[] = [];
    q.maybeThrottle(30);
    q.push(request(1, sent));
    expect(sent).toEqual([]);
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(sent).toEqual([1]);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });
});
