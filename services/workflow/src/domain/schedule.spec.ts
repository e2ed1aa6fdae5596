import { Cron } from 'croner';
import { closestTicksUnder, cronProblem, decideTick, isTimezone, latestTickAtOrBefore, nextTick } from './schedule';

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

  it('finds the closest two ticks under a minimum, not the usual gap', () => {
    const from = at('2026-01-01T00:00:00Z');
    const utc = (cron: string) => ({ cron, timezone: 'UTC' });
    expect(closestTicksUnder(everyTwo, 10_000, from)).toBe(2_000);
    expect(closestTicksUnder(everyTwo, 2_000, from)).toBeUndefined();
    expect(closestTicksUnder(everyTwo, 1_000, from)).toBeUndefined();
    // Once a minute at most: never under a minute, whatever the other fields.
    expect(closestTicksUnder(utc('*/15 * * * *'), 60_000, from)).toBeUndefined();
    expect(closestTicksUnder(utc('7 * * * * *'), 60_000, from)).toBeUndefined();
    expect(closestTicksUnder({ cron: '30 * * * * *', timezone: 'Asia/Kathmandu' }, 60_000, from)).toBeUndefined();
    // Twice a minute, but one second apart across the minute boundary.
    expect(closestTicksUnder(utc('0,59 * * * * *'), 60_000, from)).toBe(1_000);
    expect(closestTicksUnder(utc('0,59 * * * * *'), 1_000, from)).toBeUndefined();
    // Across an hour boundary only: minutes 59 and 0 fire in a row.
    expect(closestTicksUnder(utc('0,58 0,59 * * * *'), 10_000, from)).toBe(2_000);
    // Minutes that never fire in a row: the gap within a minute is the closest.
    expect(closestTicksUnder(utc('0,58 0,30 * * * *'), 60_000, from)).toBe(58_000);
    expect(closestTicksUnder(utc('0,58 0,30 * * * *'), 10_000, from)).toBeUndefined();
    // A minimum over a minute (no plan has one) samples the coming ticks.
    expect(closestTicksUnder(utc('*/15 * * * *'), 3_600_000, from)).toBe(900_000);
  });

  it('agrees with the closest gap over the next 1,000 ticks listed one by one', () => {
    const from = at('2026-03-29T00:30:00Z');
    const patterns = [
      '*/7 * * * * *',
      '0,30 * * * * *',
      '5,50 */2 * * * *',
      '0,59 59 * * * *',
      '1-3 0 9 * * *',
      '0 9 * * 1-5',
    ];
    for (const cron of patterns) {
      for (const timezone of ['UTC', 'Europe/Berlin']) {
        const ticks = new Cron(cron, { paused: true, timezone, mode: '5-or-6-parts' }).nextRuns(1_000, from);
        let listed = Infinity;
        for (let i = 1; i < ticks.length; i++) listed = Math.min(listed, ticks[i]!.getTime() - ticks[i - 1]!.getTime());
        for (const minimum of [1_000, 10_000, 30_000, 60_000]) {
          expect([cron, timezone, minimum, closestTicksUnder({ cron, timezone }, minimum, from)]).toEqual([
            cron,
            timezone,
            minimum,
            listed < minimum ? listed : undefined,
          ]);
        }
      }
    }
  });

  it('answers fast: a save no longer stalls the service', () => {
    /** The fastest of five rounds: a round the machine preempted or collected in says nothing. */
    const fastest = (work: () => void) => {
      let best = Infinity;
      for (let round = 0; round < 5; round++) {
        const started = performance.now();
        work();
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    const checks = fastest(() => {
      for (let second = 0; second < 60; second++)
        closestTicksUnder({ cron: `${second} * * * * *`, timezone: 'UTC' }, 60_000, new Date());
    });
    const listing = fastest(() => {
      new Cron('*/2 * * * * *', { paused: true, mode: '5-or-6-parts' }).nextRuns(1_000, new Date());
    });
    // Sixty checks cost less than listing 1,000 ticks once (measured in the same run).
    expect(checks).toBeLessThan(listing);
  });

  it('computes UTC ticks as croner does in the UTC timezone, faster', () => {
    const from = at('2026-03-29T00:30:00Z');
    for (const cron of ['0 9 * * 1-5', '*/7 * * * * *', '0,59 59 23 * * *', '@hourly', '0 0 29 2 *']) {
      const zoned = new Cron(cron, { paused: true, timezone: 'UTC', mode: '5-or-6-parts' });
      for (const timezone of ['UTC', 'Etc/UTC', 'GMT']) {
        let mine: Date | null = from;
        for (const expected of zoned.nextRuns(50, from)) {
          mine = nextTick({ cron, timezone }, mine!);
          expect(mine).toEqual(expected);
        }
        expect(latestTickAtOrBefore({ cron, timezone }, mine!)).toEqual(mine);
      }
    }
    const steps = (next: (after: Date) => Date | null) => {
      const started = process.hrtime.bigint();
      let tick: Date | null = from;
      for (let i = 0; i < 300; i++) tick = next(tick!);
      return process.hrtime.bigint() - started;
    };
    const zoned = new Cron('5 * * * * *', { paused: true, timezone: 'UTC', mode: '5-or-6-parts' });
    // The scheduler computes one next tick per run: measured against croner's timezone path.
    expect(steps((after) => nextTick({ cron: '5 * * * * *', timezone: 'UTC' }, after))).toBeLessThan(
      steps((after) => zoned.nextRun(after)) / 2n,
    );
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

  it('decides a tick reached late about as cheaply as one on time', () => {
    // A scheduler that fell over 10 s behind takes the late path for every workflow: listing 1,000
    // ticks there made each cost tens of ms, so it fell further behind. Measured against the on-time path.
    const perMinute = { cron: '7 * * * * *', timezone: 'UTC', input: {}, catchUpMs: 0 };
    const due = at('2026-01-01T00:00:07Z');
    const cost = (lateMs: number) => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 200; i++) decideTick(perMinute, due, new Date(due.getTime() + lateMs));
      return process.hrtime.bigint() - started;
    };
    cost(0);
    cost(15_000);
    expect(decideTick(perMinute, due, new Date(due.getTime() + 15_000))).toEqual({
      next: at('2026-01-01T00:01:07Z'),
      skipped: 1,
    });
    expect(cost(15_000)).toBeLessThan(cost(0) * 30n);
  });
});
