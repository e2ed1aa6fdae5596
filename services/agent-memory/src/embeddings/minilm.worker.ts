import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { InferenceSession, Tensor } from 'onnxruntime-node';

/**
 * Runs the sentence-embedding model (see minilm-embedding.provider.ts) in a worker thread, so
 * tokenizing and inference never hold the service's event loop. One job at a time: the provider
 * queues them, queries first.
 */
export interface WorkerInit {
  dir: string;
  maxTokens: number;
  /** Session options over the defaults below (measurements). */
  session?: Record<string, unknown>;
}

export type WorkerRequest = { id: number; texts: string[] };
export type WorkerReply =
  | { type: 'ready'; dimension: number }
  | { type: 'failed'; message: string }
  | { id: number; vectors: Float32Array[] }
  | { id: number; error: string };

async function start(port: NonNullable<typeof parentPort>, init: WorkerInit): Promise<void> {
  // An ES module only package: loaded with import(), which TypeScript keeps as it is.
  const { Tokenizer } = await import('@huggingface/tokenizers');
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(path.join(init.dir, 'tokenizer.json'), 'utf8')), {});
  // One thread and no spinning: on a shared, busy machine spin-waiting threads slow everyone down.
  // No memory arena: it kept the peak of the longest batch for good (890 MB RSS after batches of
  // 256-token texts, against about 340 MB without it).
  const session = await InferenceSession.create(path.join(init.dir, 'model.onnx'), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableCpuMemArena: false,
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
    ...init.session,
  });

  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    const encoded = texts.map((text) => {
      const ids = tokenizer.encode(text).ids;
      // Keep [CLS] ... [SEP]: the model was trained on at most maxTokens tokens.
      return ids.length <= init.maxTokens ? ids : [...ids.slice(0, init.maxTokens - 1), ids[ids.length - 1]];
    });
    const n = texts.length;
    const width = Math.max(...encoded.map((ids) => ids.length));
    const inputIds = new BigInt64Array(n * width);
    const mask = new BigInt64Array(n * width);
    encoded.forEach((ids, row) => {
      for (let j = 0; j < ids.length; j++) {
        inputIds[row * width + j] = BigInt(ids[j]);
        mask[row * width + j] = 1n;
      }
    });
    const shape = [n, width];
    const output = await session.run({
      input_ids: new Tensor('int64', inputIds, shape),
      attention_mask: new Tensor('int64', mask, shape),
      token_type_ids: new Tensor('int64', new BigInt64Array(n * width), shape),
    });
    const hidden = output[session.outputNames[0]];
    const dimension = hidden.dims[2];
    const data = hidden.data as Float32Array;
    // Mean pooling over the real tokens, then unit length: how sentence-transformers uses the model.
    return encoded.map((ids, row) => {
      const vector = new Float32Array(dimension);
      for (let j = 0; j < ids.length; j++) {
        const base = (row * width + j) * dimension;
        for (let d = 0; d < dimension; d++) vector[d] += data[base + d];
      }
      let sum = 0;
      for (let d = 0; d < dimension; d++) sum += vector[d] * vector[d];
      const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
      for (let d = 0; d < dimension; d++) vector[d] *= scale;
      return vector;
    });
  };

  const [probe] = await embed(['ready']);
  port.on('message', (request: WorkerRequest) => {
    embed(request.texts).then(
      (vectors) =>
        port.postMessage(
          { id: request.id, vectors } satisfies WorkerReply,
          vectors.map((v) => v.buffer as ArrayBuffer),
        ),
      (error: unknown) =>
        port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  port.postMessage({ type: 'ready', dimension: probe.length } satisfies WorkerReply);
}

if (parentPort) {
  const port = parentPort;
  start(port, workerData as WorkerInit).catch((error: unknown) =>
    port.postMessage({
      type: 'failed',
      message: error instanceof Error ? error.message : String(error),
    } satisfies WorkerReply),
  );
}
