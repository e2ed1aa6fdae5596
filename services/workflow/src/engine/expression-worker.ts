import { parentPort, workerData } from 'node:worker_threads';
import {
  ExpressionError,
  ExpressionResourceError,
  checkExpression,
  type ExpressionScope,
} from '../domain/expressions.js';
import { computeNode, nodeExpressions } from '../domain/node-expressions.js';
import type { WorkflowNode } from '../domain/workflow.types.js';

/**
 * One expression-sandbox thread (expression-sandbox.ts): computes a node's CEL work per message.
 * Before each job it stamps the shared progress buffer with its start time, and before each
 * expression with the expression's index, so the main thread can time the job and name the
 * expression even while this thread is busy and cannot answer. Parsing and planning happen before
 * the stamp: they depend only on the source (at most 4,096 bytes), not on the data, and have their
 * own, larger allowance (expression-sandbox.ts).
 */
export interface SandboxJob {
  id: number;
  node: WorkflowNode;
  scope: ExpressionScope;
}

export type SandboxAnswer =
  | { ready: true }
  | { id: number; ok: true; output: Record<string, unknown> }
  | { id: number; ok: false; expressionError: boolean; outOfMemory: boolean; message: string };

const { progress } = workerData as { progress: SharedArrayBuffer };
const startedAt = new Float64Array(progress, 0, 1);
const current = new Int32Array(progress, 8, 1);

/** What a first evaluation costs a fresh thread (loading and optimising the evaluator's code). */
function warmUp(): void {
  const node: WorkflowNode = {
    id: 'warm',
    type: 'transform',
    config: {
      fields: { a: '[1, 2, 3].all(x, x > 0) && input.s.size() > 0', b: '"x" + input.s + string(input.n + 1)' },
    },
  };
  for (let i = 0; i < 20; i++) computeNode(node, { input: { s: 'abc', n: i }, nodes: {}, previous: {} });
}

parentPort!.on('message', (job: SandboxJob) => {
  const sources = nodeExpressions(job.node);
  sources.forEach((source, i) => {
    Atomics.store(current, 0, i);
    checkExpression(source);
  });
  Atomics.store(current, 0, -1);
  startedAt[0] = Date.now();
  let answer: SandboxAnswer;
  try {
    const output = computeNode(job.node, job.scope, (source) => Atomics.store(current, 0, sources.indexOf(source)));
    answer = { id: job.id, ok: true, output };
  } catch (error) {
    answer = {
      id: job.id,
      ok: false,
      expressionError: error instanceof ExpressionError,
      outOfMemory: error instanceof ExpressionResourceError,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  startedAt[0] = 0;
  parentPort!.postMessage(answer);
});

warmUp();
parentPort!.postMessage({ ready: true } satisfies SandboxAnswer);
