import { createHmac } from 'node:crypto';
import { signatureHeaders, standardWebhooksKey } from './signature';

describe('signature headers', () => {
  const body = '{"id":"evt_1"}';

  it('signs "<t>.<body>" in hex for X-Service-Signature and "<id>.<t>.<body>" in base64 for Standard Webhooks', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const headers = signatureHeaders({ body, messageId: 'evt_1', timestamp: 1700000000, secrets: [secret] });
    expect(headers['x-service-signature']).toBe(
      `t=1700000000,v1=${createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex')}`,
    );
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', Buffer.alloc(32, 7)).update(`evt_1.1700000000.${body}`).digest('base64')}`,
    );
  });

  it('adds one entry per secret during a rotation', () => {
    const headers = signatureHeaders({
      body,
      messageId: 'evt_1',
      timestamp: 1,
      secrets: ['new-secret-0123456789', 'old-secret-0123456789'],
    });
    expect(headers['x-service-signature'].split(',')).toHaveLength(3);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
  });

  it('uses a non-whsec secret as its UTF-8 bytes for Standard Webhooks', () => {
    expect(standardWebhooksKey('plain-secret-0123456789')).toEqual(Buffer.from('plain-secret-0123456789'));
  });
});
