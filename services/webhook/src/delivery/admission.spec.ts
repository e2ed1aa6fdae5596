import { Admission, type AdmissionQueue } from './admission';
import type { DispatchJob } from './dispatch-job';

function jobs(tenantId: string, count: number): DispatchJob[] {
  return Array.from({ length: count }, (_, i) => ({ deliveryId: `${tenantId}-${i}`, tenantId }) as DispatchJob);
}

/** The dispatcher's queue as admission sees it: room per tenant, in memory. */
function fakeQueue(capacity: Record<string, number>) {
  const queued: DispatchJob[] = [];
  const handedBack: DispatchJob[] = [];
  const state = { poolFull: false, accepting: true, nudges: 0 };
  const queue: AdmissionQueue = {
    roomFor: (tenant) => (capacity[tenant] ?? 4) - queued.filter((j) => j.tenantId === tenant).length,
    poolFull: () => state.poolFull,
    guaranteed: 4,
    accepting: () => state.accepting,
    enqueue: (list) => void queued.push(...list),
    handBack: async (list) => void handedBack.push(...list),
    nudge: () => void (state.nudges += 1),
  };
  const admission = new Admission(queue);
  /** One of the tenant's queued jobs ends. */
  const finish = (tenant: string) => {
    const index = queued.findIndex((j) => j.tenantId === tenant);
    if (index >= 0) queued.splice(index, 1);
    admission.jobEnded(tenant);
  };
  return { admission, queued, handedBack, state, finish };
}

describe('Admission', () => {
  it("queues what fits at once and hands a stuck tenant's rest back after a short wait", async () => {
    const { admission, queued, handedBack } = fakeQueue({ stuck: 4, quiet: 10 });
    const started = Date.now();
    await admission.admit([...jobs('stuck', 10), ...jobs('quiet', 3)]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(queued.filter((j) => j.tenantId === 'quiet')).toHaveLength(3);
    expect(queued.filter((j) => j.tenantId === 'stuck')).toHaveLength(4);
    expect(handedBack.map((j) => j.deliveryId)).toEqual(
      jobs('stuck', 10)
        .slice(4)
        .map((j) => j.deliveryId),
    );
  });

  it("keeps a tenant's burst in memory while its jobs keep ending", async () => {
    const { admission, queued, handedBack, finish } = fakeQueue({ busy: 4 });
    let sent = 0;
    const sender = setInterval(() => {
      if (queued.length > 0) sent += 1;
      finish('busy');
    }, 10);
    try {
      await admission.admit(jobs('busy', 20));
    } finally {
      clearInterval(sender);
    }
    expect(handedBack).toEqual([]);
    expect(sent + queued.length).toBeGreaterThanOrEqual(20);
  });

  it('wakes the poller for a tenant left with work in the database once its queue is half empty', async () => {
    const { admission, state, finish } = fakeQueue({ t: 4 });
    await admission.admit(jobs('t', 6));
    expect(state.nudges).toBe(0);
    finish('t');
    expect(state.nudges).toBe(0);
    finish('t');
    expect(state.nudges).toBe(1);
    finish('t');
    expect(state.nudges).toBe(1);
  });

  it('waits for room in the shared pool only while jobs end, and briefly', async () => {
    const { admission, state } = fakeQueue({});
    const started = Date.now();
    await admission.waitForRoom();
    expect(Date.now() - started).toBeLessThan(50);
    state.poolFull = true;
    const waiting = Date.now();
    // No job ends: the wait gives up after the idle time, not the whole time.
    await admission.waitForRoom();
    expect(Date.now() - waiting).toBeGreaterThanOrEqual(90);
    expect(Date.now() - waiting).toBeLessThan(400);
  });

  it('leases a queueful more than the room now, and nothing while shutting down', async () => {
    const { admission, state, handedBack } = fakeQueue({ t: 6 });
    expect(admission.leasableFor('t')).toBe(10);
    state.accepting = false;
    expect(admission.leasableFor('t')).toBe(0);
    await admission.admit(jobs('t', 2));
    expect(handedBack).toHaveLength(2);
  });
});
