import { agentMemoryV1 } from '@agentplatform/contracts/agent-memory-v1';
import { startOutbox } from '@agentplatform/events';
import {
  bootService,
  connectIdentityCredits,
  createGuardedAgent,
  QuotaCounter,
  serve,
  type Logger,
} from '@agentplatform/service-kit';
import { Gauge } from 'prom-client';
import type { Dispatcher } from 'undici';
import { grpcWorkflows } from './clients/workflow.client.js';
import { startChargeRetryJob } from './jobs/charge-retry.job.js';
import { EmbeddingBacklog } from './jobs/embedding-backlog.js';
import { loadServiceConfig, type Config } from './config.js';
import type { EmbeddingProvider } from './embeddings/embedding-provider.js';
import { LocalEmbeddingProvider } from './embeddings/local-embedding.js';
import { MiniLmEmbeddingProvider } from './embeddings/minilm-embedding.provider.js';
import { OpenAiEmbeddingProvider } from './embeddings/openai-embedding.provider.js';
import type { LlmProvider } from './llm/llm-provider.js';
import { LocalResponder } from './llm/local-responder.js';
import { OpenAiChatProvider } from './llm/openai-chat.provider.js';
import { prepareTokenizer } from './llm/tokenizer.js';
import { AgentRepository } from './persistence/agent.repository.js';
import { ChatRepository } from './persistence/chat.repository.js';
import { GroupedAgentReads } from './persistence/grouped-agent-reads.js';
import { EmbeddingBacklogRepository } from './persistence/embedding-backlog.repository.js';
import { MemoryRepository } from './persistence/memory.repository.js';
import { MemoryWriter } from './persistence/memory-writer.js';
import { MemoryIndexCache } from './search/memory-index-cache.js';
import { QueryEmbeddings } from './search/query-embeddings.js';
import { McpTools } from './tools/mcp-tools.js';
import { agentMemoryService } from './transport/agent-memory.grpc.js';
import { retryPendingCharges } from './use-cases/chat-credits.js';
import type { UseCaseDeps } from './use-cases/deps.js';
import { resealToolHeaders } from './use-cases/reseal-tool-headers.js';

function llmProvider(config: Config, dispatcher: Dispatcher): LlmProvider {
  if (!config.LLM_BASE_URL) return new LocalResponder();
  return new OpenAiChatProvider({
    dispatcher,
    baseUrl: config.LLM_BASE_URL,
    apiKey: config.LLM_API_KEY,
    defaultModel: config.LLM_MODEL,
    timeoutMs: config.LLM_TIMEOUT_MS,
    retries: config.LLM_MAX_RETRIES,
  });
}

/**
 * The configured endpoint wins; else the offline model (loading in the background); else (model
 * missing) the hashing embedding, with a warning that says how to get the model.
 */
function embeddingProvider(config: Config, logger: Logger, dispatcher: Dispatcher): EmbeddingProvider {
  if (config.EMBEDDINGS_BASE_URL) return openAiEmbeddings(config, config.EMBEDDINGS_BASE_URL, dispatcher);
  const dir = config.EMBEDDINGS_MODEL_DIR;
  if (dir === 'none') return new LocalEmbeddingProvider();
  if (!MiniLmEmbeddingProvider.present(dir)) {
    logger.warn(
      { dir },
      'embedding model not found: using the hashing embedding (no synonyms); run `node deploy/local/model.js fetch`',
    );
    return new LocalEmbeddingProvider();
  }
  return new MiniLmEmbeddingProvider(dir, logger);
}

function openAiEmbeddings(config: Config, baseUrl: string, dispatcher: Dispatcher): EmbeddingProvider {
  return new OpenAiEmbeddingProvider({
    dispatcher,
    baseUrl,
    apiKey: config.EMBEDDINGS_API_KEY,
    model: config.EMBEDDINGS_MODEL,
    timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
    retries: config.LLM_MAX_RETRIES,
  });
}

/** config -> mongo -> kafka (outbox relay) -> grpc server -> graceful shutdown */
async function main(): Promise<void> {
  const config = loadServiceConfig();
  const runtime = await bootService('agent-memory', config);
  const outbox = await startOutbox(runtime, config);
  const agents = new AgentRepository(runtime.mongo);
  const memories = new MemoryRepository(runtime.mongo);
  const chats = new ChatRepository(runtime.mongo, outbox);
  const backlogStore = new EmbeddingBacklogRepository(runtime.mongo);
  await Promise.all([agents.init(), memories.init(), chats.init(), backlogStore.init()]);
  // Before serving: tool header values under a retired data key, or not yet bound to their origin.
  const resealed = await resealToolHeaders({ agents, box: config.DATA_ENCRYPTION_KEY, logger: runtime.logger });
  if (resealed > 0) runtime.logger.info({ agents: resealed }, 're-encrypted agent tool header values');
  const credits = connectIdentityCredits(runtime, config);
  // The model providers' endpoints are the operator's (LLM_BASE_URL, EMBEDDINGS_BASE_URL), often
  // on a private network (a local Ollama, an in-cluster vLLM): the outbound client allows them,
  // where customers' URLs (tools, below) are refused private addresses unless ALLOW_PRIVATE_URLS.
  const providerAgent = createGuardedAgent({ allowPrivate: true });
  runtime.lifecycle.onShutdown('model provider http agent', () => providerAgent.close());
  const embedder = embeddingProvider(config, runtime.logger, providerAgent);
  runtime.lifecycle.onShutdown('embeddings', () => embedder.close?.() ?? Promise.resolve());
  const index = new MemoryIndexCache(
    memories,
    embedder,
    config.MEMORY_INDEX_CACHE_MAX_MB * 1024 * 1024,
    runtime.logger,
  );
  new Gauge({
    name: 'agent_memory_index_cache_bytes',
    help: "The agents' search indexes held by this replica's cache, in estimated heap bytes",
    registers: [runtime.metrics.registry],
    collect() {
      this.set(index.heldBytes);
    },
  });
  const backlog = new EmbeddingBacklog(
    { store: backlogStore, agents, embedder, index, logger: runtime.logger, metrics: runtime.metrics },
    {
      batchSize: config.EMBEDDINGS_BATCH_SIZE,
      leaseMs: config.EMBEDDINGS_LEASE_MS,
      idlePollMs: config.EMBEDDINGS_IDLE_POLL_MS,
      yieldMs: config.EMBEDDINGS_YIELD_MS,
    },
  );
  const llm = llmProvider(config, providerAgent);
  const workflows = grpcWorkflows(config.WORKFLOW_GRPC_ADDR, config.GRPC_DEADLINE_MS, runtime.metrics);
  runtime.lifecycle.onShutdown('workflow client', () => workflows.close());
  const dispatcher = createGuardedAgent({ allowPrivate: config.ALLOW_PRIVATE_URLS });
  runtime.lifecycle.onShutdown('tool http agent', () => dispatcher.close());
  const quotas = new QuotaCounter(runtime.mongo);
  const deps: UseCaseDeps = {
    agents,
    memories,
    memoryWriter: new MemoryWriter({ agents, memories, quotas, index, backlog }),
    chats,
    chatAgents: new GroupedAgentReads(agents),
    outbox,
    embedder,
    queryEmbeddings: new QueryEmbeddings(embedder, config.QUERY_EMBEDDING_CACHE_SIZE, runtime.logger, {
      maxWaitMs: config.QUERY_EMBEDDING_MAX_WAIT_MS || Infinity,
      warmUpMs: config.QUERY_EMBEDDING_WARM_UP_MS,
      metrics: runtime.metrics,
    }),
    backlog,
    llm,
    credits,
    quotas,
    index,
    settings: {
      lexicalWeight: config.SEARCH_LEXICAL_WEIGHT,
      consolidateThreshold: config.CONSOLIDATE_THRESHOLD,
      historyMessages: config.CHAT_HISTORY_MESSAGES,
      chatMemoryTopK: config.CHAT_MEMORY_TOP_K,
      chatMemoryMinScore: config.CHAT_MEMORY_MIN_SCORE,
      chatTurnDeadlineMs: config.CHAT_TURN_DEADLINE_MS,
    },
    logger: runtime.logger,
    tools: {
      workflows,
      box: config.DATA_ENCRYPTION_KEY,
      dispatcher,
      mcp: new McpTools(dispatcher, runtime.logger),
    },
  };
  runtime.server.add(agentMemoryV1.AgentMemoryServiceDefinition, agentMemoryService(deps));

  startChargeRetryJob(runtime, (batch) => retryPendingCharges(deps, batch), config.CHARGE_RETRY_INTERVAL_MS);

  backlog.start();
  runtime.lifecycle.onShutdown('embedding backlog', () => backlog.stop());

  runtime.logger.info({ llm: llm.name, embeddings: embedder.id }, 'providers');
  // Chats count tokens with every provider: the tokenizer is built before the first call, not in it.
  prepareTokenizer();
  await serve(runtime, config);
}

main().catch((error) => {
  process.stderr.write(`agent-memory failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
