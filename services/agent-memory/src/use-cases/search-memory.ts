import { NotFoundError, ValidationError, type FieldIssue } from '@agentplatform/service-kit';
import type { MemoryType } from '../domain/agent.js';
import { parseFilters } from '../domain/memory-filter.js';
import type { ScoredMemory } from '../domain/memory.js';
import type { IndexedMemory } from '../search/memory-index.js';
import type { UseCaseDeps } from './deps.js';
import { checkMemoryType } from '../domain/memory-rules.js';

export const DEFAULT_TOP_K = 10;
const MAX_QUERY = 4_000;

export interface SearchInput {
  tenantId: string;
  agentId: string;
  query: string;
  memoryType?: string;
  /** 0: the default. */
  topK: number;
  filters?: Record<string, unknown>;
  minScore?: number;
  /**
   * The agent's memory version, when the caller has just read the agent (a chat turn): the search
   * then reads no version of its own. The cache's rule holds for any version read before the index.
   */
  memoryVersion?: number;
  /**
   * The search is a request of its own (the API's): refused (503, nothing done) when the model
   * would not embed its query in time. A tool's search within a chat under way waits instead.
   */
  admit?: boolean;
}

/** Hybrid search over one agent's items (see MemoryIndex for the score). */
export async function searchMemory(
  deps: UseCaseDeps,
  input: SearchInput,
  exclude?: (doc: IndexedMemory) => boolean,
): Promise<ScoredMemory[]> {
  const { tenantId } = input;
  const issues: FieldIssue[] = [];
  if (!input.agentId) issues.push({ field: 'agent_id', message: 'is required' });
  const text = (input.query ?? '').trim();
  if (text === '') issues.push({ field: 'query', message: 'must not be empty' });
  else if (text.length > MAX_QUERY) issues.push({ field: 'query', message: `must be at most ${MAX_QUERY} characters` });
  const topK = input.topK === 0 ? DEFAULT_TOP_K : input.topK;
  if (!Number.isInteger(topK) || topK < 1 || topK > 100)
    issues.push({ field: 'top_k', message: 'must be an integer from 1 to 100' });
  if (input.minScore !== undefined && !(input.minScore >= 0 && input.minScore <= 1)) {
    issues.push({ field: 'min_score', message: 'must be a number from 0 to 1' });
  }
  let memoryType: MemoryType | undefined;
  if (input.memoryType) memoryType = checkMemoryType(undefined, input.memoryType, issues);
  let filters: ReturnType<typeof parseFilters> = [];
  try {
    filters = parseFilters(input.filters);
  } catch (error) {
    if (error instanceof ValidationError) issues.push(...error.details);
    else throw error;
  }
  if (issues.length > 0) throw new ValidationError(issues);
  if (input.admit) deps.queryEmbeddings.admit(text, tenantId);

  // The query's vector (a model call of milliseconds when it is not cached) is asked for first, so
  // it is computed while the agent's version is read and its index loaded, not after. It never
  // rejects (a failed embedding is an empty vector: lexical search).
  const vector = deps.queryEmbeddings.vector(text, tenantId);
  const version = input.memoryVersion ?? (await deps.agents.memoryVersion(tenantId, input.agentId));
  if (version === undefined) throw new NotFoundError('Agent');
  const index = await deps.index.get(tenantId, input.agentId, version);
  return index.search({
    text,
    vector: await vector,
    memoryType,
    filters,
    topK,
    minScore: input.minScore ?? 0,
    lexicalWeight: deps.settings.lexicalWeight,
    exclude,
  });
}
