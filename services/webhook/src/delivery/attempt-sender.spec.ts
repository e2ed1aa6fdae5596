import { createHmac } from 'node:crypto';
import type { AttemptResult, Webhook } from '../domain/types';
import { sendAttempt } from './attempt-sender';
import type { DispatchJob } from './dispatch-job';
import type { SendRequest } from './http-sender';

describe('sendAttempt', () => {
  it('signs the exact body with the current and grace secrets and numbers the attempt', async () => {
    const requests: SendRequest[] = [];
    const sender = {
      send: async (request: SendRequest): Promise<AttemptResult> => {
        requests.push(request);
        return { number: request.number, attemptedAt: new Date(), durationMs: 1, responseHeaders: {}, success: true };
      },
    };
    const job = {
      deliveryId: 'del_1',
      tenantId: 'ten_1',
      eventId: 'evt_1',
      eventType: 'agent.created',
      attempts: 2,
      body: '{"id":"evt_1"}',
      webhook: {
        url: 'https://hooks.example.com/in',
        signingSecret: 'current-secret-0123456789',
        previousSecrets: [{ secret: 'old-secret-0123456789', expires_at: new Date(Date.now() + 60_000) }],
      } as unknown as Webhook,
    } as DispatchJob;
    await sendAttempt(sender, job);
    const [request] = requests;
    expect(request).toMatchObject({ url: 'https://hooks.example.com/in', body: job.body, number: 3 });
    expect(request!.headers).toMatchObject({
      'x-service-event-id': 'evt_1',
      'x-service-event-type': 'agent.created',
      'x-service-delivery-id': 'del_1',
      'x-service-delivery-attempt': '3',
    });
    // X-Service-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, one v1 per secret.
    const signature = request!.headers['x-service-signature']!;
    const t = /t=(\d+)/.exec(signature)![1];
    const v1 = [...signature.matchAll(/v1=([0-9a-f]+)/g)].map((m) => m[1]);
    const hmac = (secret: string) => createHmac('sha256', secret).update(`${t}.${job.body}`).digest('hex');
    expect(v1).toEqual([hmac('current-secret-0123456789'), hmac('old-secret-0123456789')]);
  });
});
