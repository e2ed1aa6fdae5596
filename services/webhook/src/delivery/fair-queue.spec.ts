import { FairQueue, type QueueBounds, type Started } from './fair-queue';

interface Job {
  id: string;
  tenant: string;
  host: string;
}

const job = (id: string, tenant: string, host: string): Job => ({ id, tenant, host });

function queue(
  shares: { total?: number; perTenant?: number; perDestination?: number } = {},
  bounds: Partial<QueueBounds> = {},
) {
  const perDestination = shares.perDestination ?? 3;
  return new FairQueue<Job>(
    { total: 100, perTenant: 2, ...shares, perDestination: () => perDestination },
    { guaranteed: 4, perTenantMax: 4, poolJobs: 100, poolBytes: 1_000_000, ...bounds },
    { tenant: (j) => j.tenant, destination: (j) => j.host, bytes: (j) => j.id.length },
  );
}

/** Starts jobs until none may start; answers them in order. */
function startAll(q: FairQueue<Job>): Array<Started<Job>> {
  const started: Array<Started<Job>> = [];
  for (let s = q.next(); s; s = q.next()) started.push(s);
  return started;
}

describe('FairQueue', () => {
  it('never runs more of one tenant than its share, so another tenant starts at once', () => {
    const q = queue();
    for (let i = 0; i < 10; i += 1) q.push(job(`noisy${i}`, 'noisy', 'slow:80'));
    q.push(job('quiet0', 'quiet', 'fast:80'));
    const started = startAll(q).map((s) => s.job.id);
    expect(started).toEqual(['noisy0', 'quiet0', 'noisy1']);
    expect(q.size).toBe(8);
  });

  it('never runs more to one destination than its share, whatever the tenants', () => {
    const q = queue({ perTenant: 10 });
    for (const tenant of ['a', 'b', 'c'])
      for (let i = 0; i < 3; i += 1) q.push(job(`${tenant}${i}`, tenant, 'shared:443'));
    q.push(job('c-other', 'c', 'other:443'));
    const started = startAll(q);
    expect(started.filter((s) => s.destination === 'shared:443')).toHaveLength(3);
    // Tenants take turns at the shared destination's slots, and c's other destination is not held up.
    expect(started.map((s) => s.job.id)).toEqual(['a0', 'b0', 'c0', 'c-other']);
  });

  it('hands a freed slot to the tenant served least recently', () => {
    const q = queue({ total: 2, perTenant: 5, perDestination: 5 });
    for (let i = 0; i < 3; i += 1) q.push(job(`a${i}`, 'a', 'h:1'));
    for (let i = 0; i < 3; i += 1) q.push(job(`b${i}`, 'b', 'h:2'));
    const [first, second] = startAll(q);
    expect([first.job.id, second.job.id]).toEqual(['a0', 'b0']);
    q.done(first);
    expect(q.next()?.job.id).toBe('a1');
    q.done(second);
    expect(q.next()?.job.id).toBe('b1');
  });

  it('keeps order within a tenant and destination, and puts a test send first', () => {
    const q = queue({ perTenant: 1 });
    q.push(job('1', 't', 'h:1'));
    q.push(job('2', 't', 'h:1'));
    q.push(job('test', 't', 'h:1'), true);
    const order: string[] = [];
    for (let s = q.next(); s; s = q.next()) {
      order.push(s.job.id);
      q.done(s);
    }
    expect(order).toEqual(['test', '1', '2']);
  });

  it('says how many more jobs of a tenant may wait, and drains on shutdown', () => {
    const q = queue();
    expect(q.roomFor('t')).toBe(4);
    for (let i = 0; i < 5; i += 1) q.push(job(`${i}`, 't', 'h:1'));
    expect(q.roomFor('t')).toBe(0);
    expect(q.roomFor('other')).toBe(4);
    startAll(q);
    expect(q.roomFor('t')).toBe(1);
    expect(q.drain().map((j) => j.id)).toEqual(['2', '3', '4']);
    expect(q.size).toBe(0);
    expect(q.inFlight).toBe(2);
  });

  it('frees the tenant and destination slots when the answer comes, the replica slot when stored', () => {
    const q = queue({ total: 2, perTenant: 1 });
    for (let i = 0; i < 3; i += 1) q.push(job(`${i}`, 't', 'h:1'));
    const first = q.next()!;
    expect(q.next()).toBeUndefined();
    q.requestEnded(first);
    // The answer is in but its outcome is not stored yet: the tenant may send its next request.
    const second = q.next()!;
    expect(second.job.id).toBe('1');
    q.requestEnded(second);
    // Two outcomes being stored hold the replica's two slots.
    expect(q.next()).toBeUndefined();
    q.done(first);
    expect(q.next()?.job.id).toBe('2');
    q.done(second);
    expect(q.inFlight).toBe(1);
  });

  it('asks for the destination limit on every start, and says when a job used the whole limit', () => {
    let limit = 1;
    const q = new FairQueue<Job>(
      { total: 100, perTenant: 10, perDestination: () => limit },
      { guaranteed: 10, perTenantMax: 10, poolJobs: 0, poolBytes: 0 },
      { tenant: (j) => j.tenant, destination: (j) => j.host, bytes: () => 1 },
    );
    for (let i = 0; i < 4; i += 1) q.push(job(`${i}`, 't', 'h:1'));
    expect(startAll(q).map((s) => s.saturated)).toEqual([true]);
    limit = 3;
    expect(startAll(q).map((s) => s.saturated)).toEqual([false, true]);
  });

  it('lets a tenant queue beyond its guaranteed room from a shared pool, bounded by count and bytes', () => {
    const q = queue({}, { guaranteed: 2, perTenantMax: 5, poolJobs: 4, poolBytes: 1_000 });
    expect(q.roomFor('a')).toBe(5);
    for (let i = 0; i < 5; i += 1) q.push(job(`a${i}`, 'a', 'h:1'));
    // a holds 3 of the pool's 4: b still has its 2 guaranteed and the pool's last one.
    expect(q.roomFor('a')).toBe(0);
    expect(q.roomFor('b')).toBe(3);
    for (let i = 0; i < 3; i += 1) q.push(job(`b${i}`, 'b', 'h:2'));
    expect(q.poolFull).toBe(true);
    // The pool is used up, yet a tenant with nothing queued keeps its guaranteed room.
    expect(q.roomFor('c')).toBe(2);
    expect(q.roomFor('b')).toBe(0);
    // Bytes count too: one job over the byte bound leaves only the guaranteed room.
    const big = queue({}, { guaranteed: 1, perTenantMax: 10, poolJobs: 100, poolBytes: 10 });
    big.push(job('x'.repeat(10), 'a', 'h:1'));
    expect(big.poolFull).toBe(true);
    expect(big.roomFor('b')).toBe(1);
    startAll(big);
    expect(big.poolFull).toBe(false);
  });
});
