import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { InferenceSession, Tensor } from 'onnxruntime-node';

/**
 * Runs the sentence-embedding model (see minilm-embedding.provider.ts) in a worker thread, so
 * tokenizing and inference never hold the service's event loop. One job at a time: the provider
 * queues them, queries first; a job's texts run one at a time.
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

  /**
   * One text a run, never padded beside others: the model quantizes its activations per run, so a
   * text's vector would move (cosine 0.98-0.99) with the texts run beside it. Alone, a text's
   * vector depends on the text only, whichever tenant's texts share the call; and runs of several
   * texts saved no CPU (long texts: 22 against 22-25 ms each; mixed lengths cost the padding).
   */
  const embedOne = async (text: string): Promise<Float32Array> => {
    const all = tokenizer.encode(text).ids;
    // Keep [CLS] ... [SEP]: the model was trained on at most maxTokens tokens.
    const ids = all.length <= init.maxTokens ? all : [...all.slice(0, init.maxTokens - 1), all[all.length - 1]];
    const shape = [1, ids.length];
    const output = await session.run({
      input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), shape),
      attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), shape),
      token_type_ids: new Tensor('int64', new BigInt64Array(ids.length), shape),
    });
    const hidden = output[session.outputNames[0]];
    const dimension = hidden.dims[2];
    const data = hidden.data as Float32Array;
    // Mean pooling over the tokens, then unit length: how sentence-transformers uses the model.
    const vector = new Float32Array(dimension);
    for (let j = 0; j < ids.length; j++) for (let d = 0; d < dimension; d++) vector[d] += data[j * dimension + d];
    let sum = 0;
    for (let d = 0; d < dimension; d++) sum += vector[d] * vector[d];
    const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let d = 0; d < dimension; d++) vector[d] *= scale;
    return vector;
  };
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for (const text of texts) vectors.push(await embedOne(text));
    return vectors;
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
