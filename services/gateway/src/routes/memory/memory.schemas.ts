import { z } from 'zod';
import { pageParams } from '../../http/paging.js';
import { MEMORY_TYPES } from '../agents/agents.schemas.js';

const metadata = z.record(z.string(), z.unknown()).describe('Free-form JSON object (e.g. source, category)');

export const addMemoryBody = z.object({
  agent_id: z.string().min(1),
  memory_type: z
    .enum(MEMORY_TYPES)
    .optional()
    .describe('Default: semantic; must be enabled in the agent’s memory_types'),
  content: z.string().min(1).max(20_000),
  metadata: metadata.optional(),
});

/** Items of one `POST /memory/batch` (agent-memory's LIMITS.memoryBatch checks the same). */
const MEMORY_BATCH_MAX_ITEMS = 100;

export const addMemoryBatchBody = z.object({
  agent_id: z.string().min(1),
  items: z
    .array(addMemoryBody.omit({ agent_id: true }))
    .min(1)
    .max(MEMORY_BATCH_MAX_ITEMS)
    .describe(
      `1 to ${MEMORY_BATCH_MAX_ITEMS} items, stored all or none; each as the body of POST /memory without agent_id`,
    ),
});

export const updateMemoryBody = z.object({
  content: z.string().min(1).max(20_000).optional(),
  memory_type: z.enum(MEMORY_TYPES).optional(),
  metadata: metadata.optional().describe('Replaces the item’s metadata'),
});

const FILTERS_HELP =
  'Metadata filters, all of which must hold: `{"category": "billing"}` (equality) or ' +
  '`{"priority": {"gte": 2, "lt": 5}}` with operators eq, ne, in (array), gt, gte, lt, lte (numbers or ' +
  'strings), contains (substring, case-insensitive, or array element). Dotted keys reach nested metadata.';

export const searchMemoryBody = z.object({
  agent_id: z.string().min(1),
  query: z.string().min(1).max(4_000),
  memory_type: z.enum(MEMORY_TYPES).optional(),
  top_k: z.number().int().min(1).max(100).default(10),
  filters: z.record(z.string(), z.unknown()).optional().describe(FILTERS_HELP),
  min_score: z.number().min(0).max(1).optional(),
});

export const consolidateBody = z.object({
  agent_id: z.string().min(1),
  threshold: z
    .number()
    .min(0.5)
    .max(1)
    .optional()
    .describe('Cosine similarity at or above which two items of one memory type are duplicates (default 0.9)'),
});

export const listMemoryQuery = z.object({
  agent_id: z.string().min(1).optional(),
  memory_type: z.enum(MEMORY_TYPES).optional(),
  ...pageParams,
});

export const memoryParams = z.object({ memory_id: z.string().min(1) });

export const memoryResponse = z.object({
  id: z.string(),
  agent_id: z.string(),
  memory_type: z.enum(MEMORY_TYPES),
  content: z.string(),
  metadata,
  merged_from: z.array(z.string()).describe('Ids of the items consolidation merged into this one'),
  embedding: z.object({ provider: z.string(), dimension: z.number().int() }),
  created_at: z.string(),
  updated_at: z.string(),
});

export const memoryBatchResponse = z.object({
  items: z.array(memoryResponse).describe('The stored items, in the order of the request'),
});

export const memoryListResponse = z.object({
  items: z.array(memoryResponse),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

export const searchResponse = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      content: z.string(),
      score: z.number().min(0).max(1).describe('Fused lexical (BM25) and embedding score; higher is better'),
      metadata,
      memory_type: z.enum(MEMORY_TYPES),
      created_at: z.string(),
    }),
  ),
});

export const consolidateResponse = z.object({
  merged: z.number().int().describe('Groups of duplicates merged into one item each'),
  removed: z.number().int().describe('Items removed because another absorbed them'),
  remaining: z.number().int(),
  groups: z.array(z.object({ kept_id: z.string(), merged_ids: z.array(z.string()) })),
});

export const deleteResponse = z.object({ success: z.boolean(), message: z.string() });
