import fs from 'node:fs';
import path from 'node:path';
import workerThreads from 'node:worker_threads';
import { createLogger } from '@agentplatform/service-kit';
import type { WorkflowNode } from '../domain/workflow.types.js';
import { ExpressionBudgetExceeded, ExpressionSandbox, SandboxExpressionError } from './expression-sandbox.js';

/**
 * The sandbox with real worker threads. A worker runs compiled JavaScript, so this spec uses the
 * build output (`node scripts/test.js` and `nx test` build first).
 */
const WORKER = path.join(__dirname, '../../dist/engine/expression-worker.js');

const LIST = `[${Array.from({ length: 300 }, (_, i) => i).join(',')}]`;
/** 27 million iterations of nested macros: minutes of CPU without a budget. */
const BOMB = `${LIST}.all(x, ${LIST}.all(y, ${LIST}.all(z, true)))`;
const scope = { input: { amount: 150 }, nodes: {}, previous: {} };

function condition(source: string): WorkflowNode {
  return { id: 'check', type: 'condition', config: { rules: [{ if: source, goto: 'a' }, { else: 'b' }] } };
}

describe('ExpressionSandbox', () => {
  let sandbox: ExpressionSandbox;
  const open = (threads: number, budgetMs = 50) =>
    (sandbox = new ExpressionSandbox({
      budgetMs,
      threads,
      memoryMb: 64,
      logger: createLogger('sandbox-test', 'silent'),
      workerFile: WORKER,
    }));

  beforeAll(() => {
    if (!fs.existsSync(WORKER)) throw new Error(`build the workflow service first (${WORKER} is missing)`);
  });
  afterEach(() => sandbox?.close());

  it('computes a condition in a worker thread', async () => {
    open(1);
    const output = await sandbox.compute(
      { tenantId: 't1', node: condition('input.amount > 100'), scope },
      new AbortController().signal,
    );
    expect(output).toMatchObject({ branch: 'rules[0]', goto: 'a' });
  });

  it('starts its threads with the first job, not at boot, and the first job gets its whole budget', async () => {
    const RealWorker = workerThreads.Worker;
    const spawned = jest
      .spyOn(workerThreads, 'Worker')
      .mockImplementation((...args: ConstructorParameters<typeof RealWorker>) => new RealWorker(...args));
    try {
      open(2, 50);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // An idle replica (no expression past the static bound yet) holds no isolate for them.
      expect(spawned).not.toHaveBeenCalled();
      // Start-up (seconds on a loaded machine) is not taken from the 50 ms budget of the job.
      const output = await sandbox.compute(
        { tenantId: 't1', node: condition('[1, 2, 3].all(x, x > 0)'), scope },
        new AbortController().signal,
      );
      expect(output).toMatchObject({ goto: 'a' });
      expect(spawned).toHaveBeenCalledTimes(2);
    } finally {
      spawned.mockRestore();
    }
  });

  it('reports an expression that cannot be evaluated', async () => {
    open(1);
    const node: WorkflowNode = { id: 't', type: 'transform', config: { fields: { x: 'input.amount / 0' } } };
    await expect(sandbox.compute({ tenantId: 't1', node, scope }, new AbortController().signal)).rejects.toThrow(
      SandboxExpressionError,
    );
  });

  it('stops a bomb at its budget, names it, and keeps the event loop free meanwhile', async () => {
    open(1);
    // Let the thread start up, so the figures below are about the bomb only.
    await sandbox.compute({ tenantId: 't1', node: condition('true'), scope }, new AbortController().signal);
    let worstLag = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      worstLag = Math.max(worstLag, Date.now() - last - 5);
      last = Date.now();
    }, 5);
    const started = Date.now();
    const error = await sandbox
      .compute({ tenantId: 't1', node: condition(BOMB), scope }, new AbortController().signal)
      .catch((e: unknown) => e);
    const took = Date.now() - started;
    clearInterval(ticker);
    expect(error).toBeInstanceOf(ExpressionBudgetExceeded);
    expect((error as ExpressionBudgetExceeded).expression).toBe(BOMB);
    expect(took).toBeGreaterThanOrEqual(50);
    expect(took).toBeLessThan(2_000);
    expect(worstLag).toBeLessThan(200);
    // The replaced thread serves the next job.
    await expect(
      sandbox.compute({ tenantId: 't1', node: condition('true'), scope }, new AbortController().signal),
    ).resolves.toMatchObject({ goto: 'a' });
  });

  it('stops string-doubling chains, by time or by memory, without harm to the next job', async () => {
    open(1);
    await sandbox.compute({ tenantId: 't1', node: condition('true'), scope }, new AbortController().signal);
    for (const doublings of [22, 40]) {
      const source = `["ab"]${'.map(a, a + a)'.repeat(doublings)}[0].size() > 0`;
      const started = Date.now();
      const error = await sandbox
        .compute({ tenantId: 't1', node: condition(source), scope }, new AbortController().signal)
        .catch((e: unknown) => e);
      // Over budget either way, even in a condition (never "not matched").
      expect(error).toBeInstanceOf(ExpressionBudgetExceeded);
      expect((error as ExpressionBudgetExceeded).expression).toBe(source);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    await expect(
      sandbox.compute({ tenantId: 't1', node: condition('true'), scope }, new AbortController().signal),
    ).resolves.toMatchObject({ goto: 'a' });
  });

  it("keeps a thread for other tenants while one tenant's bombs queue up", async () => {
    open(2);
    const warm = (tenantId: string) =>
      sandbox.compute({ tenantId, node: condition('true'), scope }, new AbortController().signal);
    await Promise.all([warm('noisy'), warm('quiet')]);
    const bombs = Array.from({ length: 4 }, () =>
      sandbox.compute({ tenantId: 'noisy', node: condition(BOMB), scope }, new AbortController().signal).then(
        () => Date.now(),
        () => Date.now(),
      ),
    );
    const started = Date.now();
    const quiet = await sandbox.compute(
      { tenantId: 'quiet', node: condition('input.amount > 1'), scope },
      new AbortController().signal,
    );
    const quietAt = Date.now();
    const bombTimes = await Promise.all(bombs);
    expect(quiet).toMatchObject({ goto: 'a' });
    // The quiet tenant waited for none of the bombs after the first (each costs a budget and a
    // thread restart); the bound is generous for a loaded machine.
    expect(quietAt).toBeLessThan(bombTimes[1]!);
    expect(quietAt - started).toBeLessThan(1_500);
  });

  it('keeps a thread for ordinary tenants while two heavy tenants flood it with bombs', async () => {
    open(2, 20);
    const run = (tenantId: string, source: string) =>
      sandbox.compute({ tenantId, node: condition(source), scope }, new AbortController().signal).then(
        () => Date.now(),
        () => Date.now(),
      );
    await Promise.all([run('a', 'true'), run('b', 'true'), run('quiet', 'true')]);
    // Each bomb costs its tenant a budget and a thread restart: a few make both tenants heavy.
    await Promise.all(['a', 'b'].flatMap((t) => Array.from({ length: 3 }, () => run(t, BOMB))));
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const bombs = ['a', 'b'].flatMap((t) => Array.from({ length: 4 }, () => run(t, BOMB)));
    const quietAt = await run('quiet', 'input.amount > 1');
    // Without the heavy tenants' shared cap, each would hold a thread and the quiet job would wait
    // for a bomb to end and its thread to restart.
    expect(quietAt).toBeLessThan(Math.min(...(await Promise.all(bombs))));
  });

  it('sends a thread only the earlier outputs the expressions read, and the previous output whole', async () => {
    open(1);
    const node: WorkflowNode = {
      id: 'call',
      type: 'integration',
      config: { service: 'http', url: 'https://example.com/{{ [nodes.a.id].map(i, string(i))[0] }}' },
    };
    const previous = { x: 1, nested: { y: [1, 2] } };
    const output = await sandbox.compute(
      {
        tenantId: 't1',
        node,
        scope: { input: {}, nodes: { a: { id: 7 }, big: { blob: 'z'.repeat(1_000) } }, previous },
      },
      new AbortController().signal,
    );
    // The default body is the previous output, which the expressions do not name.
    expect(output).toMatchObject({ url: 'https://example.com/7', body: previous });
  });

  it('gives up a running job when its caller aborts (a node timeout, a cancel)', async () => {
    open(1, 10_000);
    const controller = new AbortController();
    const running = sandbox.compute({ tenantId: 't1', node: condition(BOMB), scope }, controller.signal);
    setTimeout(() => controller.abort(new Error('node timed out')), 100);
    const started = Date.now();
    await expect(running).rejects.toThrow('node timed out');
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(
      sandbox.compute({ tenantId: 't1', node: condition('true'), scope }, new AbortController().signal),
    ).resolves.toMatchObject({ goto: 'a' });
  });
});
