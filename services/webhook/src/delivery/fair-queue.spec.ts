import { FairQueue, type Started } from './fair-queue';

interface Job {
  id: string;
  tenant: string;
  host: string;
}

const job = (id: string, tenant: string, host: string): Job => ({ id, tenant, host });

function queue(shares: Partial<ConstructorParameters<typeof FairQueue<Job>>[0]> = {}) {
  return new FairQueue<Job>(
    { total: 100, perTenant: 2, perDestination: 3, queuedPerTenant: 4, ...shares },
    { tenant: (j) => j.tenant, destination: (j) => j.host },
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
});
