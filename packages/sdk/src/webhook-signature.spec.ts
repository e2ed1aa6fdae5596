import { createHmac } from 'node:crypto';
import {
  assertWebhookSignature,
  constructWebhookEvent,
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookSignatureError,
} from './webhook-signature';

describe('verifyWebhookSignature', () => {
  const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMw==';
  const body = '{"id":"evt_1","type":"agent.created","data":{"agent_id":"agt_1"}}';
  const now = Math.floor(Date.now() / 1000);

  function header(t: number, ...keys: string[]) {
    return [`t=${t}`, ...keys.map((k) => `v1=${createHmac('sha256', k).update(`${t}.${body}`).digest('hex')}`)].join(
      ',',
    );
  }

  it('accepts the hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret', () => {
    expect(verifyWebhookSignature(body, header(now, secret), secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header(now, secret), secret)).toBe(true);
  });

  it('accepts any matching v1 entry, as sent during a secret rotation', () => {
    expect(verifyWebhookSignature(body, header(now, 'new-secret-0123456789', secret), secret)).toBe(true);
    expect(verifyWebhookSignature(body, header(now, secret, 'old-secret-0123456789'), 'old-secret-0123456789')).toBe(
      true,
    );
  });

  it('rejects a tampered body, a wrong secret and a stale or future timestamp', () => {
    expect(verifyWebhookSignature(body.replace('agt_1', 'agt_2'), header(now, secret), secret)).toBe(false);
    expect(verifyWebhookSignature(body, header(now, secret), 'another-secret-0123456789')).toBe(false);
    // Just outside the 300 s tolerance, from the clock of this test (the suite's `now` may be
    // seconds old on a loaded machine; one more second covers a tick between here and the check).
    const current = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature(body, header(current - 302, secret), secret)).toBe(false);
    expect(verifyWebhookSignature(body, header(current + 302, secret), secret)).toBe(false);
    expect(verifyWebhookSignature(body, header(current + 298, secret), secret)).toBe(true);
    expect(verifyWebhookSignature(body, header(now - 100, secret), secret, 60)).toBe(false);
  });

  it('says why it rejects', () => {
    const reason = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as WebhookSignatureError).reason;
      }
      return 'accepted';
    };
    expect(reason(() => assertWebhookSignature(body, undefined, secret))).toBe('missing_header');
    expect(reason(() => assertWebhookSignature(body, 'v1=abc', secret))).toBe('malformed_header');
    expect(reason(() => assertWebhookSignature(body, header(now - 1000, secret), secret))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(reason(() => assertWebhookSignature(body, header(now, 'wrong-secret-0123456789'), secret))).toBe(
      'signature_mismatch',
    );
  });

  it('signs the way it verifies, and parses the event once verified', () => {
    const signed = signWebhookPayload(body, secret);
    expect(constructWebhookEvent(body, signed, secret)).toEqual(JSON.parse(body));
    expect(() => constructWebhookEvent(`${body} `, signed, secret)).toThrow(WebhookSignatureError);
  });
});
