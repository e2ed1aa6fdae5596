import { cronProblem, decideTick, isTimezone, latestTickAtOrBefore, nextTick, smallestIntervalMs } from './schedule';

const at = (iso: string) => new Date(iso);
const everyTwo = { cron: '*/2 * * * * *', timezone: 'UTC', input: {}, catchUpMs: 0 };

describe('schedules', () => {
  it('accepts 5 and 6 fields and names what is wrong otherwise', () => {
    expect(cronProblem('0 9 * * 1-5')).toBeUndefined();
    expect(cronProblem('*/2 * * * * *')).toBeUndefined();
    expect(cronProblem('* * * *')).toMatch(/five, six/);
    expect(cronProblem('0 0 0 * * * 2030')).toMatch(/5 or 6 parts/);
    expect(cronProblem('61 * * * *')).toBeDefined();
    expect(cronProblem('0 0 30 2 *')).toBe('never fires');
  });

  it('knows IANA timezones', () => {
    expect(isTimezone('Europe/Berlin')).toBe(true);
    expect(isTimezone('UTC')).toBe(true);
    expect(isTimezone('Mars/Olympus')).toBe(false);
  });

  it('computes ticks in the schedule timezone', () => {
    const nine = { cron: '0 9 * * *', timezone: 'Europe/Berlin' };
    expect(nextTick(nine, at('2026-01-01T00:00:00Z'))).toEqual(at('2026-01-01T08:00:00Z'));
    expect(nextTick(nine, at('2026-07-01T00:00:00Z'))).toEqual(at('2026-07-01T07:00:00Z'));
    expect(nextTick(everyTwo, at('2026-01-01T00:00:02Z'))).toEqual(at('2026-01-01T00:00:04Z'));
    expect(latestTickAtOrBefore(everyTwo, at('2026-01-01T00:00:04Z'))).toEqual(at('2026-01-01T00:00:04Z'));
    expect(latestTickAtOrBefore(everyTwo, at('2026-01-01T00:00:05.900Z'))).toEqual(at('2026-01-01T00:00:04Z'));
  });

  it('measures the smallest gap between ticks, not the usual one', () => {
    const from = at('2026-01-01T00:00:00Z');
    expect(smallestIntervalMs(everyTwo, from)).toBe(2_000);
    expect(smallestIntervalMs({ cron: '*/15 * * * *', timezone: 'UTC' }, from)).toBe(900_000);
    // Twice a minute, but one second apart across the minute boundary.
    expect(smallestIntervalMs({ cron: '0,59 * * * * *', timezone: 'UTC' }, from)).toBe(1_000);
  });

  it('runs a due tick reached on time and moves to the next one', () => {
    const decision = decideTick(everyTwo, at('2026-01-01T00:00:02Z'), at('2026-01-01T00:00:02.300Z'));
    expect(decision).toEqual({ run: at('2026-01-01T00:00:02Z'), next: at('2026-01-01T00:00:04Z'), skipped: 0 });
  });

  it('skips ticks missed while no replica ran, or runs the newest once within catch_up_ms', () => {
    const due = at('2026-01-01T00:00:02Z');
    const now = at('2026-01-01T00:01:00.500Z');
    // The newest tick came while this replica runs: it is on time; the 29 before it were missed.
    expect(decideTick(everyTwo, due, now)).toEqual({
      run: at('2026-01-01T00:01:00Z'),
      next: at('2026-01-01T00:01:02Z'),
      skipped: 29,
    });
    expect(decideTick(everyTwo, due, at('2026-01-01T00:01:59Z'))).toEqual({
      run: at('2026-01-01T00:01:58Z'),
      next: at('2026-01-01T00:02:00Z'),
      skipped: 58,
    });
    const hourly = { cron: '0 * * * *', timezone: 'UTC', input: {}, catchUpMs: 0 };
    const late = decideTick(hourly, at('2026-01-01T01:00:00Z'), at('2026-01-01T03:20:00Z'));
    expect(late).toEqual({ next: at('2026-01-01T04:00:00Z'), skipped: 3 });
    const caught = decideTick(
      { ...hourly, catchUpMs: 30 * 60_000 },
      at('2026-01-01T01:00:00Z'),
      at('2026-01-01T03:20:00Z'),
    );
    expect(caught).toEqual({ run: at('2026-01-01T03:00:00Z'), next: at('2026-01-01T04:00:00Z'), skipped: 2 });
  });
});
