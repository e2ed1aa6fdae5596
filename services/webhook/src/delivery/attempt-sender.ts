import { SpanKind, contextFromTraceparent, failSpan, injectTraceHeaders, traced } from '@agentplatform/service-kit';
import { signingSecrets } from '../domain/secrets.js';
import { signatureHeaders } from '../domain/signature.js';
import type { AttemptResult } from '../domain/types.js';
import type { DispatchJob } from './dispatch-job.js';
import type { SendRequest } from './http-sender.js';

/** The port attempts go out through (HttpSender in production). */
export interface RequestSender {
  send(request: SendRequest): Promise<AttemptResult>;
}

/**
 * Makes one attempt of a delivery: signs its body with the webhook's secrets and sends it. With
 * tracing on, the attempt is a client span in the trace of the event's consumption and the
 * request carries its `traceparent`, so a receiver that traces joins the same trace.
 */
export function sendAttempt(sender: RequestSender, job: DispatchJob): Promise<AttemptResult> {
  return traced(
    'webhook delivery',
    {
      kind: SpanKind.CLIENT,
      parent: contextFromTraceparent(job.traceparent),
      attributes: {
        'http.request.method': 'POST',
        'agentplatform.delivery.id': job.deliveryId,
        'agentplatform.event.id': job.eventId,
        'agentplatform.event.type': job.eventType,
        'agentplatform.webhook.id': job.webhook.id,
        'agentplatform.tenant.id': job.tenantId,
        'agentplatform.delivery.attempt': job.attempts + 1,
      },
    },
    async (span) => {
      const result = await send(sender, job);
      if (span) {
        if (result.responseStatus !== undefined) span.setAttribute('http.response.status_code', result.responseStatus);
        if (!result.success) failSpan(span, new Error(result.error ?? `HTTP ${result.responseStatus}`));
      }
      return result;
    },
  );
}

function send(sender: RequestSender, job: DispatchJob): Promise<AttemptResult> {
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
  return sender.send({ url: job.webhook.url, body: job.body, headers: injectTraceHeaders(headers), number });
}
