import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from '@agentplatform/service-kit';
import type { EmbedOptions, EmbeddingProvider, QueriesWaiting } from './embedding-provider.js';
import { ModelCalls } from './model-calls.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './minilm.worker.js';
import { MAX_TOKENS } from './word-pieces.js';

export const MINILM_FILES = ['model.onnx', 'tokenizer.json'] as const;

export interface MiniLmOptions {
  /** Texts per model call for background batches (default BACKGROUND_CALL, see ModelCalls). */
  backgroundCall?: number;
  /** ONNX Runtime session options over the defaults (for measurements: bench/model-rss.js). */
  session?: Record<string, unknown>;
  /**
   * The worker's V8 limits (measurements: capping its young generation at 2 MB changed the RSS by
   * less than 1 MB, so the service sets none).
   */
  resourceLimits?: ResourceLimits;
}

/**
 * The offline sentence-embedding model (all-MiniLM-L6-v2, ONNX with int8 weights and products, 384
 * dimensions), fetched by `node deploy/local/model.js fetch` and run in one worker thread. Model
 * calls run one at a time; interactive ones (a search's query) go before background batches, which
 * are cut into calls of a few texts, so a query waits at most for one short call in progress, and
 * tenants' queries take turns (see ModelCalls).
 */
export class MiniLmEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'minilm-l6-v2-int8-dynamic';
  private readonly calls: ModelCalls;
  private failure: Error | undefined;
  private loaded = false;
  private readonly worker: Worker;

  /**
   * Starts loading the model in the worker and returns at once: the service serves while the
   * model loads (seconds on a busy machine). Until then queries rank lexically (see
   * QueryEmbeddings) and the backlog's batches wait.
   */
  constructor(dir: string, logger: Logger, options: MiniLmOptions = {}) {
    const started = Date.now();
    this.worker = new Worker(path.join(__dirname, 'minilm.worker.js'), {
      workerData: { dir, maxTokens: MAX_TOKENS, session: options.session } satisfies WorkerInit,
      resourceLimits: options.resourceLimits,
    });
    this.calls = new ModelCalls(
      (id, texts) => this.worker.postMessage({ id, texts } satisfies WorkerRequest),
      options.backgroundCall,
    );
    this.worker.on('message', (reply: WorkerReply) => {
      if ('type' in reply && reply.type === 'ready') {
        this.loaded = true;
        logger.info({ dir, dimension: reply.dimension, ms: Date.now() - started }, 'embedding model loaded');
        this.calls.start();
      } else if ('type' in reply) {
        logger.error(
          { dir, reason: reply.message },
          'embedding model failed to load: search is lexical only and new memories wait for vectors; ' +
            'fetch it again (node deploy/local/model.js fetch) or set EMBEDDINGS_MODEL_DIR=none',
        );
        this.fail(new Error(`embedding model failed to load: ${reply.message}`));
      } else if ('vectors' in reply) this.calls.settle(reply.id, reply.vectors);
      else this.calls.settle(reply.id, new Error(`embedding failed: ${reply.error}`));
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

  queryWaitMs(): number {
    return this.calls.queryWaitMs();
  }

  queriesWaiting(tenantId: string): QueriesWaiting {
    return this.calls.waiting(tenantId);
  }

  backgroundModelMs(): number {
    return this.calls.backgroundModelMs();
  }

  embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    return this.calls.enqueue(texts, options.background === true, options.tenantId);
  }

  async close(): Promise<void> {
    this.fail(new Error('embedding model closed'));
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.calls.fail(this.failure);
  }
}
