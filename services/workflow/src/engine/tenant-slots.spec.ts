import { RunSlot, TenantSlots } from './tenant-slots.js';

/** Records the order in which waiters get their slots. */
function waiters(slots: TenantSlots) {
  const order: string[] = [];
  const ask = (tenant: string, label = tenant, signal = new AbortController().signal) =>
    slots.acquire(tenant, signal).then(() => {
      order.push(label);
    });
  return { order, ask };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('TenantSlots', () => {
  it('keeps one tenant below the total, so another tenant starts at once', async () => {
    const slots = new TenantSlots({ total: 4, perTenant: 3 });
    const { order, ask } = waiters(slots);
    for (let i = 0; i < 5; i++) void ask('a', `a${i}`);
    await flush();
    expect(order).toEqual(['a0', 'a1', 'a2']);
    void ask('b');
    await flush();
    expect(order).toEqual(['a0', 'a1', 'a2', 'b']);
    expect(slots.runningOf('a')).toBe(3);
    expect(slots.queued).toBe(2);
  });

  it('gives a freed slot to the waiting tenant that runs the fewest', async () => {
    const slots = new TenantSlots({ total: 4, perTenant: 4 });
    const { order, ask } = waiters(slots);
    for (let i = 0; i < 6; i++) void ask('a', `a${i}`);
    await flush();
    void ask('b', 'b0');
    void ask('b', 'b1');
    void ask('c', 'c0');
    await flush();
    expect(order).toEqual(['a0', 'a1', 'a2', 'a3']);
    slots.release('a');
    await flush();
    slots.release('a');
    await flush();
    // b and c (none running) go before a's next run; b asked first.
    expect(order.slice(4)).toEqual(['b0', 'c0']);
    slots.release('a');
    await flush();
    // One each: a has waited longest.
    expect(order.slice(6)).toEqual(['a4']);
    slots.release('a');
    await flush();
    // a runs two, b one: b's second run goes before a's next.
    expect(order.slice(7)).toEqual(['b1']);
  });

  it('forgets a waiter whose run was aborted', async () => {
    const slots = new TenantSlots({ total: 1, perTenant: 1 });
    const { order, ask } = waiters(slots);
    void ask('a', 'a0');
    const controller = new AbortController();
    const aborted = slots.acquire('a', controller.signal);
    void ask('a', 'a2');
    controller.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    slots.release('a');
    await flush();
    expect(order).toEqual(['a0', 'a2']);
    expect(slots.queued).toBe(0);
  });

  it('admits new runs of one tenant up to the total, and of all tenants up to the total waiting', async () => {
    const slots = new TenantSlots({ total: 2, perTenant: 1 });
    const signal = new AbortController().signal;
    expect(slots.admit('a')).toBe(true);
    expect(slots.admit('a')).toBe(true);
    // Admitted, not yet started: counted all the same (runs are admitted before they are stored).
    expect(slots.admit('a')).toBe(false);
    void slots.acquire('a', signal, true);
    void slots.acquire('a', signal, true);
    expect(slots.admit('a')).toBe(false);
    expect(slots.admit('b')).toBe(true);
    expect(slots.admit('c')).toBe(false);
    slots.withdraw('b');
    expect(slots.admit('c')).toBe(true);
  });

  it('does not count parents coming back from their children against new runs', async () => {
    const slots = new TenantSlots({ total: 2, perTenant: 1 });
    void slots.acquire('a', new AbortController().signal);
    for (let i = 0; i < 5; i++) void slots.acquire('a', new AbortController().signal);
    expect(slots.queued).toBe(5);
    expect(slots.admit('a')).toBe(true);
    expect(slots.admit('b')).toBe(true);
  });
});

describe('TenantSlots.room', () => {
  it("makes a tenant's new child runs wait until its runs free their slots", async () => {
    const slots = new TenantSlots({ total: 4, perTenant: 2 });
    const signal = new AbortController().signal;
    const first = await slots.room('a', signal);
    slots.use(first);
    await slots.acquire('a', signal, true);
    const second = await slots.room('a', signal);
    let third: unknown;
    void slots.room('a', signal).then((admission) => (third = admission));
    await flush();
    expect(third).toBeUndefined();
    // Another tenant is not held up by a's waiting children.
    await expect(slots.room('b', signal)).resolves.toBeDefined();
    second.release();
    await flush();
    expect(third).toBeDefined();
    let fourth: unknown;
    void slots.room('a', signal).then((admission) => (fourth = admission));
    slots.release('a');
    await flush();
    expect(fourth).toBeDefined();
  });
});

describe('RunSlot', () => {
  it('gives its slot to others while it waits outside, and queues for one after', async () => {
    const slots = new TenantSlots({ total: 1, perTenant: 1 });
    const parent = new RunSlot(slots, 'a', new AbortController().signal, false);
    await parent.take();
    let finishChild = (): void => undefined;
    const child = new RunSlot(slots, 'a', new AbortController().signal, false);
    const waited = parent.outside(async () => {
      await child.take();
      await new Promise<void>((resolve) => (finishChild = resolve));
      child.give();
      return 'children done';
    });
    await flush();
    expect(slots.inUse).toBe(1);
    finishChild();
    await expect(waited).resolves.toBe('children done');
    expect(slots.inUse).toBe(1);
    parent.give();
    parent.give();
    expect(slots.inUse).toBe(0);
  });
});
