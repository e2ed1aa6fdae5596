import type { z } from 'zod';
import type { agentMemoryV1 } from '@agentplatform/contracts';
import type { Backends } from '../../clients/backends.js';
import { defineRoute, requireScope, type Caller, type Route } from '../../http/route.js';
import { pageJson, pageOf } from '../../http/paging.js';
import type { RouteDeps } from '../deps.js';
import {
  addMemoryBatchBody,
  addMemoryBody,
  consolidateBody,
  consolidateResponse,
  deleteResponse,
  listMemoryQuery,
  memoryBatchResponse,
  memoryListResponse,
  memoryParams,
  memoryResponse,
  searchMemoryBody,
  searchResponse,
  updateMemoryBody,
} from './memory.schemas.js';

function memoryJson(item: agentMemoryV1.MemoryItem) {
  return {
    id: item.id,
    agent_id: item.agentId,
    memory_type: item.memoryType,
    content: item.content,
    metadata: item.metadata ?? {},
    merged_from: item.mergedFrom,
    embedding: { provider: item.embeddingProvider, dimension: item.embeddingDimension },
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  };
}

type AgentMemory = Backends['agentMemory'];

/** `POST /memory`, and the MCP tool `add_memory` (grouped with concurrent adds: Backends.addMemory). */
export async function addMemory(
  backends: Pick<Backends, 'addMemory'>,
  caller: Caller,
  body: z.infer<typeof addMemoryBody>,
) {
  return memoryJson(
    await backends.addMemory({
      tenantId: caller.tenantId,
      agentId: body.agent_id,
      memoryType: body.memory_type,
      content: body.content,
      metadata: body.metadata ?? {},
      plan: caller.plan ?? '',
    }),
  );
}

/** `POST /memory/batch`: one gRPC call for the whole batch. */
async function addMemoryBatch(memory: AgentMemory, caller: Caller, body: z.infer<typeof addMemoryBatchBody>) {
  const out = await memory.addMemories({
    tenantId: caller.tenantId,
    agentId: body.agent_id,
    items: body.items.map((item) => ({
      memoryType: item.memory_type,
      content: item.content,
      metadata: item.metadata ?? {},
    })),
    plan: caller.plan ?? '',
  });
  return { items: out.items.map(memoryJson) };
}

/** `POST /memory/search`, and the MCP tool `search_memory`. */
export async function searchMemory(memory: AgentMemory, caller: Caller, body: z.infer<typeof searchMemoryBody>) {
  const out = await memory.searchMemory({
    tenantId: caller.tenantId,
    agentId: body.agent_id,
    query: body.query,
    memoryType: body.memory_type,
    topK: body.top_k,
    filters: body.filters,
    minScore: body.min_score,
  });
  return {
    results: out.results.map((r) => ({
      id: r.id,
      content: r.content,
      score: r.score,
      metadata: r.metadata ?? {},
      memory_type: r.memoryType,
      created_at: r.createdAt,
    })),
  };
}

/** The API reference (Memory) and docs/design.md section 6: add, hybrid search, CRUD, consolidation. */
export function memoryRoutes({ backends }: RouteDeps): Route[] {
  const memory = backends.agentMemory;
  return [
    defineRoute({
      method: 'post',
      path: '/memory',
      summary: 'Add a memory item to an agent',
      tag: 'memory',
      access: requireScope('memory:write'),
      idempotent: true,
      body: addMemoryBody,
      example: {
        agent_id: 'agt_paste_an_agent_id',
        memory_type: 'semantic',
        content: 'Refunds take 5 to 7 business days.',
        metadata: { source: 'faq', category: 'billing' },
      },
      status: 201,
      response: memoryResponse,
      handler: ({ body, caller }) => addMemory(backends, caller, body),
    }),
    defineRoute({
      method: 'post',
      path: '/memory/batch',
      summary: 'Add 1 to 100 memory items to an agent at once, all or none (each counts toward the memories quota)',
      tag: 'memory',
      access: requireScope('memory:write'),
      idempotent: true,
      body: addMemoryBatchBody,
      example: {
        agent_id: 'agt_paste_an_agent_id',
        items: [
          {
            memory_type: 'episodic',
            content: 'Alice: I finally booked the trip to Lisbon for May.',
            metadata: { session: 3, date: '2026-04-02' },
          },
          {
            memory_type: 'episodic',
            content: 'Bob: Nice! Are you taking the train or flying?',
            metadata: { session: 3, date: '2026-04-02' },
          },
          { content: 'Refunds take 5 to 7 business days.', metadata: { source: 'faq' } },
        ],
      },
      status: 201,
      response: memoryBatchResponse,
      handler: ({ body, caller }) => addMemoryBatch(memory, caller, body),
    }),
    defineRoute({
      method: 'post',
      path: '/memory/search',
      summary: 'Hybrid search (BM25 fused with embedding similarity) over an agent’s memory items',
      tag: 'memory',
      access: requireScope('memory:read'),
      body: searchMemoryBody,
      example: { agent_id: 'agt_paste_an_agent_id', query: 'how long does a refund take', top_k: 5 },
      response: searchResponse,
      handler: ({ body, caller }) => searchMemory(memory, caller, body),
    }),
    defineRoute({
      method: 'post',
      path: '/memory/consolidate',
      summary: 'Merge an agent’s near-duplicate memory items; fires memory.consolidated',
      tag: 'memory',
      access: requireScope('memory:write'),
      body: consolidateBody,
      example: { agent_id: 'agt_paste_an_agent_id' },
      response: consolidateResponse,
      handler: async ({ body, caller }) => {
        const out = await memory.consolidateMemory({
          tenantId: caller.tenantId,
          agentId: body.agent_id,
          threshold: body.threshold,
        });
        return {
          merged: out.merged,
          removed: out.removed,
          remaining: out.remaining,
          groups: out.groups.map((g) => ({ kept_id: g.keptId, merged_ids: g.mergedIds })),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/memory',
      summary: 'List memory items, newest first (optionally one agent’s, one memory type)',
      tag: 'memory',
      access: requireScope('memory:read'),
      query: listMemoryQuery,
      response: memoryListResponse,
      handler: async ({ query, caller }) => {
        const out = await memory.listMemories({
          tenantId: caller.tenantId,
          agentId: query.agent_id,
          memoryType: query.memory_type,
          ...pageOf(query),
        });
        return { items: out.items.map(memoryJson), ...pageJson(out) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/memory/:memory_id',
      summary: 'Get a memory item',
      tag: 'memory',
      access: requireScope('memory:read'),
      params: memoryParams,
      response: memoryResponse,
      handler: async ({ params, caller }) =>
        memoryJson(await memory.getMemory({ tenantId: caller.tenantId, memoryId: params.memory_id })),
    }),
    defineRoute({
      method: 'patch',
      path: '/memory/:memory_id',
      summary: 'Update a memory item (content is re-embedded; metadata replaces the old)',
      tag: 'memory',
      access: requireScope('memory:write'),
      params: memoryParams,
      body: updateMemoryBody,
      example: { content: 'Refunds take 3 to 5 business days.', metadata: { category: 'billing' } },
      response: memoryResponse,
      handler: async ({ params, body, caller }) =>
        memoryJson(
          await memory.updateMemory({
            tenantId: caller.tenantId,
            memoryId: params.memory_id,
            content: body.content,
            memoryType: body.memory_type,
            metadata: body.metadata,
          }),
        ),
    }),
    defineRoute({
      method: 'delete',
      path: '/memory/:memory_id',
      summary: 'Delete a memory item',
      tag: 'memory',
      access: requireScope('memory:write'),
      params: memoryParams,
      response: deleteResponse,
      handler: async ({ params, caller }) => {
        await memory.deleteMemory({ tenantId: caller.tenantId, memoryId: params.memory_id });
        return { success: true, message: 'Memory item deleted' };
      },
    }),
  ];
}
