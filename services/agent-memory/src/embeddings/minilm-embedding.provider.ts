import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@agentplatform/service-kit';
import type { EmbeddingProvider } from './embedding-provider.js';
import type { WorkerInit, WorkerReply } from './minilm.worker.js';

export const MINILM_FILES = ['model.onnx', 'tokenizer.json'] as const;

/** all-MiniLM-L6-v2 was trained on sequences of at most 256 word pieces; longer texts are cut. */
const MAX_TOKENS = 256;

/**
 * Texts per model call for background batches: a query waits at most for the call in progress,
 * so the backlog's batches go to the worker in short calls (see bench/model-rss.js for the
 * figures that chose 4).
 */
const BACKGROUND_CALL = 4;

export interface MiniLmOptions {
  /** Texts per model call for background batches (default BACKGROUND_CALL). */
  backgroundCall?: number;
  /** ONNX Runtime session options over the defaults (for measurements: bench/model-rss.js). */
  session?: Record<string, unknown>;
}

interface Job {
  id: number;
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/**
 * The offline sentence-embedding model (all-MiniLM-L6-v2, int8 ONNX, 384 dimensions), fetched by
 * `node deploy/local/model.js fetch` and run in one worker thread. Model calls run one at a time;
 * interactive ones (a search's query) go before background batches, which are cut into calls of
 * a few texts, so a query waits at most for one short call in progress.
 */
export class MiniLmEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'minilm-l6-v2-int8';
  private readonly urgent: Job[] = [];
  private readonly background: Job[] = [];
  private running: Job | undefined;
  private nextId = 1;
  private failure: Error | undefined;
  private loaded = false;
  private readonly worker: Worker;

  /**
   * Starts loading the model in the worker and returns at once: the service serves while the
   * model loads (seconds on a busy machine). Until then queries rank lexically (see
   * QueryEmbeddings) and the backlog's batches wait.
   */
  private readonly backgroundCall: number;

  constructor(dir: string, logger: Logger, options: MiniLmOptions = {}) {
    const started = Date.now();
    this.backgroundCall = options.backgroundCall ?? BACKGROUND_CALL;
    this.worker = new Worker(path.join(__dirname, 'minilm.worker.js'), {
      workerData: { dir, maxTokens: MAX_TOKENS, session: options.session } satisfies WorkerInit,
    });
    this.worker.on('message', (reply: WorkerReply) => {
      if ('type' in reply && reply.type === 'ready') {
        this.loaded = true;
        logger.info({ dir, dimension: reply.dimension, ms: Date.now() - started }, 'embedding model loaded');
        this.pump();
      } else if ('type' in reply) {
        logger.error(
          { dir, reason: reply.message },
          'embedding model failed to load: search is lexical only and new memories wait for vectors; ' +
            'fetch it again (node deploy/local/model.js fetch) or set EMBEDDINGS_MODEL_DIR=none',
        );
        this.fail(new Error(`embedding model failed to load: ${reply.message}`));
      } else this.settle(reply);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`embedding worker exited (${code})`)));
  }

  /** Whether the model's files are in `dir`. */
  static present(dir: string): boolean {
    return MINILM_FILES.every((file) => existsSync(path.join(dir, file)));
  }

  /** False while the model loads (and after it failed). */
  get ready(): boolean {
    return this.loaded && !this.failure;
  }

  embed(texts: string[], options: { background?: boolean } = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.failure) return Promise.reject(this.failure);
    if (options.background && texts.length > this.backgroundCall) {
      const calls: Array<Promise<Float32Array[]>> = [];
      for (let i = 0; i < texts.length; i += this.backgroundCall) {
        calls.push(this.embed(texts.slice(i, i + this.backgroundCall), options));
      }
      return Promise.all(calls).then((parts) => parts.flat());
    }
    return new Promise((resolve, reject) => {
      const job = { id: this.nextId++, texts, resolve, reject };
      (options.background ? this.background : this.urgent).push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.fail(new Error('embedding model closed'));
    await this.worker.terminate();
  }

  private pump(): void {
    if (this.running || !this.loaded) return;
    this.running = this.urgent.shift() ?? this.background.shift();
    if (this.running) this.worker.postMessage({ id: this.running.id, texts: this.running.texts });
  }

  private settle(reply: WorkerReply): void {
    const job = this.running;
    if (!job || !('id' in reply) || reply.id !== job.id) return;
    this.running = undefined;
    if ('vectors' in reply) job.resolve(reply.vectors);
    else job.reject(new Error(`embedding failed: ${reply.error}`));
    this.pump();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const job of [this.running, ...this.urgent.splice(0), ...this.background.splice(0)]) job?.reject(this.failure);
    this.running = undefined;
  }
}
