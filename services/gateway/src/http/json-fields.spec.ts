import type { webhookV1 } from '@agentplatform/contracts';
import { jsonFields, tenantRequest } from './json-fields.js';

describe('jsonFields (a backend message as the API answers it)', () => {
  const attempt: webhookV1.Attempt = {
    number: 2,
    attemptedAt: '2026-04-02T10:00:00.000Z',
    durationMs: 35,
    responseHeaders: { 'content-type': 'text/plain' },
    success: false,
    error: 'connect ECONNREFUSED',
  };

  it('answers the named fields under their snake_case names, and only those', () => {
    expect(jsonFields(attempt, ['number', 'attempted_at', 'duration_ms', 'response_headers'])).toStrictEqual({
      number: 2,
      attempted_at: '2026-04-02T10:00:00.000Z',
      duration_ms: 35,
      response_headers: { 'content-type': 'text/plain' },
    });
  });

  it('answers an optional field the message leaves out as null, and keeps false and 0', () => {
    const json = jsonFields({ ...attempt, durationMs: 0 }, [
      'response_status',
      'response_body',
      'success',
      'duration_ms',
    ]);
    expect(json).toStrictEqual({ response_status: null, response_body: null, success: false, duration_ms: 0 });
  });
});

describe('tenantRequest (what a route parsed, as a backend request)', () => {
  it('names the caller’s tenant and renames the parsed fields as the contracts spell them', () => {
    const request = tenantRequest(
      { tenantId: 'ten_a' },
      { agent_id: 'agt_1', session_id: 'ses_1', page: 2, per_page: 50 },
    );
    expect(request).toStrictEqual({ tenantId: 'ten_a', agentId: 'agt_1', sessionId: 'ses_1', page: 2, perPage: 50 });
  });

  it('leaves out the fields the request did not give (the backend applies its default)', () => {
    expect(
      tenantRequest({ tenantId: 'ten_a' }, { query: 'refunds' } as { query: string; min_score?: number }),
    ).toStrictEqual({
      tenantId: 'ten_a',
      query: 'refunds',
    });
  });
});
