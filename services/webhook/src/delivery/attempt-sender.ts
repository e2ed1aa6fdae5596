import { signingSecrets } from '../domain/secrets.js';
import { signatureHeaders } from '../domain/signature.js';
import type { AttemptResult } from '../domain/types.js';
import type { DispatchJob } from './dispatch-job.js';
import type { SendRequest } from './http-sender.js';

/** The port attempts go out through (HttpSender in production). */
export interface RequestSender {
  send(request: SendRequest): Promise<AttemptResult>;
}

/** Makes one attempt of a delivery: signs its body with the webhook's secrets and sends it. */
export function sendAttempt(sender: RequestSender, job: DispatchJob): Promise<AttemptResult> {
  const number = job.attempts + 1;
  const headers = {
    ...signatureHeaders({
      body: job.body,
      messageId: job.eventId,
      timestamp: Math.floor(Date.now() / 1000),
      secrets: signingSecrets(job.webhook.signingSecret, job.webhook.previousSecrets),
    }),
    'x-service-event-id': job.eventId,
    'x-service-event-type': job.eventType,
    'x-service-delivery-id': job.deliveryId,
    'x-service-delivery-attempt': String(number),
  };
  return sender.send({ url: job.webhook.url, body: job.body, headers, number });
}
