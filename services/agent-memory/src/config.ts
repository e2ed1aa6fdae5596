import path from 'node:path';
import {
  dataEncryptionKeyEnv,
  env,
  kafkaEnvShape,
  loadConfig,
  outboxEnvShape,
  serviceEnvShape,
  outboundEnvShape,
} from '@agentplatform/service-kit';

const optionalUrl = env.url().orUnset();

/**
 * Where `node deploy/local/model.js fetch` puts the model, seen from this file's compiled place
 * (services/agent-memory/dist/ in the repository and in the Docker image alike).
 */
const DEFAULT_MODEL_DIR = path.resolve(__dirname, '../../../deploy/local/.cache/models/all-minilm-l6-v2-int8-dynamic');

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50052, metricsPort: 9462, database: 'agent_memory' }),
  ...kafkaEnvShape,
  ...outboxEnvShape,
  /** identity: credit balance check and charge of every chat (docs/design.md section 5). */
  IDENTITY_GRPC_ADDR: env.string('127.0.0.1:50051'),
  GRPC_DEADLINE_MS: env.int(5_000, 1),
  /** workflow: agents' workflow tools are checked and run there (docs/design.md section 9). */
  WORKFLOW_GRPC_ADDR: env.string('127.0.0.1:50053'),
  /** Seals agents' http and mcp tool header values at rest (docs/security.md). */
  DATA_ENCRYPTION_KEY: dataEncryptionKeyEnv(),
  ...outboundEnvShape,

  /**
   * OpenAI-compatible chat completions, e.g. `https://api.openai.com/v1` or `http://ollama:11434/v1`
   * (`/chat/completions` is appended). Unset: the offline `local` responder answers.
   */
  LLM_BASE_URL: optionalUrl,
  LLM_API_KEY: env.string().orUnset(),
  /** Model used when an agent's config names none. */
  LLM_MODEL: env.string('gpt-4o-mini'),
  /** Upper bound of one provider call, streaming included. */
  LLM_TIMEOUT_MS: env.int(60_000, 100),
  /** Extra attempts after a 429, a 5xx or a network error (never once a stream has started). */
  LLM_MAX_RETRIES: env.int(2, 0),

  /** OpenAI-compatible `/embeddings` endpoint base. Unset: the built-in local embedding. */
  EMBEDDINGS_BASE_URL: optionalUrl,
  EMBEDDINGS_API_KEY: env.string().orUnset(),
  EMBEDDINGS_MODEL: env.string('text-embedding-3-small'),
  EMBEDDINGS_TIMEOUT_MS: env.int(15_000, 100),
  /**
   * Folder of the offline embedding model (model.onnx, tokenizer.json; `node deploy/local/model.js
   * fetch` puts it in the default). Used when EMBEDDINGS_BASE_URL is unset; missing or unloadable:
   * the built-in hashing embedding, with a warning. `none` turns the model off.
   */
  EMBEDDINGS_MODEL_DIR: env.string(DEFAULT_MODEL_DIR),
  /** Most items per batch of the background embedding backlog (see BATCH_WORD_PIECES for its other bound). */
  EMBEDDINGS_BATCH_SIZE: env.int(16, 1),
  /** How long a replica holds a claimed batch before another may take it over (a crash's delay). */
  EMBEDDINGS_LEASE_MS: env.int(60_000, 1_000),
  /**
   * How often an idle replica looks for items added elsewhere (its own adds wake it at once), and
   * how often a busy one looks for tenants that started waiting since its last look-up.
   */
  EMBEDDINGS_IDLE_POLL_MS: env.int(1_000, 10),
  /**
   * Longest a burst of writes on a replica holds its embedding backlog back (the model's CPU is
   * left to the writes while they keep coming), from the burst's first item; 0: never.
   */
  EMBEDDINGS_YIELD_MS: env.int(10_000, 0),
  /** Search queries whose vectors are kept (LRU). */
  QUERY_EMBEDDING_CACHE_SIZE: env.int(1_000, 0),
  /**
   * Past this wait of the oldest query queued for the local model, searches and chats that need
   * a new query vector are refused (503, Retry-After) before any work; 0: never.
   */
  QUERY_EMBEDDING_MAX_WAIT_MS: env.int(500, 0),
  /**
   * For this long after its first query the local model is warming: when it falls behind then,
   * queries rank lexically (as while it loads) instead of being refused.
   */
  QUERY_EMBEDDING_WARM_UP_MS: env.int(60_000, 0),

  /** Weight of the lexical (BM25) part of the fused score; the embedding part gets the rest. */
  SEARCH_LEXICAL_WEIGHT: env.number(0.5, { min: 0, max: 1 }),
  /** Cosine similarity at or above which consolidation treats two items as duplicates. */
  CONSOLIDATE_THRESHOLD: env.number(0.9, { min: 0.5, max: 1 }),
  /** Messages of the session's history given to the model. */
  CHAT_HISTORY_MESSAGES: env.int(10, 0),
  /** Memories retrieved for a chat turn, and the score they need. */
  CHAT_MEMORY_TOP_K: env.int(5, 0),
  CHAT_MEMORY_MIN_SCORE: env.number(0.15, { min: 0, max: 1 }),
  /**
   * The per-replica cache of agents' search indexes, in megabytes of estimated heap over all
   * agents (docs/memory-search.md, "The cache's size"): at most about 40% of the process's memory
   * limit (the model and the runtime take about 300 MB, and the heap grows past what is live
   * before it is collected).
   */
  MEMORY_INDEX_CACHE_MAX_MB: env.int(1_024, 16),
  /**
   * Longest a chat turn runs, all its model rounds and tool calls together (docs/design.md section
   * 5). It stays well inside identity's reservation lifetime (CREDIT_HOLD_TTL_SECONDS, 900 s), so
   * a round's reservation never expires while the round runs: no paid work without a reservation.
   */
  CHAT_TURN_DEADLINE_MS: env.number(300_000, { min: 100, max: 600_000 }),
  /** How often chats whose charge failed (identity unreachable) are charged again. */
  CHARGE_RETRY_INTERVAL_MS: env.int(30_000, 100),
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
