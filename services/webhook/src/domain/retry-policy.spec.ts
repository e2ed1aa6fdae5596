import { decideAfterAttempt, nextAttemptDelay } from './retry-policy';

const SCHEDULE = [0, 60_000, 300_000, 1_800_000, 7_200_000];

describe('retry policy', () => {
  it('follows the schedule with up to 10 % jitter, never earlier', () => {
    expect(nextAttemptDelay(SCHEDULE, 1, undefined, () => 0)).toBe(60_000);
    expect(nextAttemptDelay(SCHEDULE, 1, undefined, () => 0.999)).toBe(65_994);
    expect(nextAttemptDelay(SCHEDULE, 4, undefined, () => 0)).toBe(7_200_000);
    expect(nextAttemptDelay(SCHEDULE, 5)).toBeUndefined();
  });

  it('waits at least as long as Retry-After asks, capped at a day', () => {
    expect(nextAttemptDelay(SCHEDULE, 1, 120_000, () => 0)).toBe(120_000);
    expect(nextAttemptDelay(SCHEDULE, 1, 1_000, () => 0)).toBe(60_000);
    expect(nextAttemptDelay(SCHEDULE, 1, 10 * 24 * 3600_000, () => 0)).toBe(24 * 3600_000);
  });

  it('decides per attempt: delivered, retry, give up (failing the webhook), 410 and test sends', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const base = { schedule: SCHEDULE, test: false, now, random: () => 0 };
    expect(decideAfterAttempt({ ...base, success: true, responseStatus: 204, roundAttempts: 1 })).toEqual({
      status: 'delivered',
    });
    expect(decideAfterAttempt({ ...base, success: false, responseStatus: 500, roundAttempts: 2 })).toEqual({
      status: 'pending',
      nextAttemptAt: new Date(now.getTime() + 300_000),
      lastError: 'endpoint answered HTTP 500',
    });
    expect(
      decideAfterAttempt({ ...base, success: false, responseStatus: 503, retryAfter: '900', roundAttempts: 2 })
        .nextAttemptAt,
    ).toEqual(new Date(now.getTime() + 900_000));
    const inTwentyMinutes = new Date(now.getTime() + 1_200_000);
    expect(
      decideAfterAttempt({
        ...base,
        success: false,
        responseStatus: 429,
        retryAfter: inTwentyMinutes.toUTCString(),
        roundAttempts: 2,
      }).nextAttemptAt,
    ).toEqual(inTwentyMinutes);
    // Retry-After is only honoured on 429 and 503.
    expect(
      decideAfterAttempt({ ...base, success: false, responseStatus: 500, retryAfter: '900', roundAttempts: 2 })
        .nextAttemptAt,
    ).toEqual(new Date(now.getTime() + 300_000));
    expect(decideAfterAttempt({ ...base, success: false, error: 'ECONNREFUSED', roundAttempts: 5 })).toMatchObject({
      status: 'failed',
      failWebhook: expect.stringContaining('all 5 attempts'),
    });
    expect(decideAfterAttempt({ ...base, success: false, responseStatus: 410, roundAttempts: 1 })).toMatchObject({
      status: 'failed',
      failWebhook: 'endpoint answered 410 Gone',
    });
    expect(decideAfterAttempt({ ...base, test: true, success: false, responseStatus: 500, roundAttempts: 1 })).toEqual({
      status: 'failed',
      lastError: 'endpoint answered HTTP 500',
    });
  });
});
