import type { z } from 'zod';
import type { agentMemoryV1 } from '@agentplatform/contracts';
import type { Backends } from '../../clients/backends.js';
import { defineRoute, requireScope, type Caller, type Route } from '../../http/route.js';
import { jsonFields, tenantRequest } from '../../http/json-fields.js';
import { itemsPage } from '../../http/paging.js';
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

const memoryJson = (item: agentMemoryV1.MemoryItem) => ({
  ...jsonFields(item, ['id', 'agent_id', 'memory_type', 'content', 'merged_from', 'created_at', 'updated_at']),
  metadata: item.metadata ?? {},
  embedding: { provider: item.embeddingProvider, dimension: item.embeddingDimension },
});

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
  const out = await memory.searchMemory(tenantRequest(caller, body));
  return {
    results: out.results.map((result) => ({
      ...jsonFields(result, ['id', 'content', 'score', 'memory_type', 'created_at']),
      metadata: result.metadata ?? {},
    })),
  };
}

/** The API reference (Memory) and docs/design.md section 6: add, hybrid search, CRUD, consolidation. */
export function memoryRoutes({ backends }: RouteDeps): Route[] {
  const memory = backends.agentMemory;
  const read = requireScope('memory:read');
  const write = requireScope('memory:write');
  return [
    defineRoute({
      method: 'post',
      path: '/memory',
      summary: 'Add a memory item to an agent',
      tag: 'memory',
      access: write,
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
      access: write,
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
      access: read,
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
      access: write,
      body: consolidateBody,
      example: { agent_id: 'agt_paste_an_agent_id' },
      response: consolidateResponse,
      handler: async ({ body, caller }) => {
        const out = await memory.consolidateMemory(tenantRequest(caller, body));
        return {
          ...jsonFields(out, ['merged', 'removed', 'remaining']),
          groups: out.groups.map((group) => jsonFields(group, ['kept_id', 'merged_ids'])),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/memory',
      summary: 'List memory items, newest first (optionally one agent’s, one memory type)',
      tag: 'memory',
      access: read,
      query: listMemoryQuery,
      response: memoryListResponse,
      handler: async ({ query, caller }) =>
        itemsPage(await memory.listMemories(tenantRequest(caller, query)), memoryJson),
    }),
    defineRoute({
      method: 'get',
      path: '/memory/:memory_id',
      summary: 'Get a memory item',
      tag: 'memory',
      access: read,
      params: memoryParams,
      response: memoryResponse,
      handler: async ({ params, caller }) => memoryJson(await memory.getMemory(tenantRequest(caller, params))),
    }),
    defineRoute({
      method: 'patch',
      path: '/memory/:memory_id',
      summary: 'Update a memory item (content is re-embedded; metadata replaces the old)',
      tag: 'memory',
      access: write,
      params: memoryParams,
      body: updateMemoryBody,
      example: { content: 'Refunds take 3 to 5 business days.', metadata: { category: 'billing' } },
      response: memoryResponse,
      handler: async ({ params, body, caller }) =>
        memoryJson(await memory.updateMemory(tenantRequest(caller, { ...params, ...body }))),
    }),
    defineRoute({
      method: 'delete',
      path: '/memory/:memory_id',
      summary: 'Delete a memory item',
      tag: 'memory',
      access: write,
      params: memoryParams,
      response: deleteResponse,
      handler: async ({ params, caller }) => {
        await memory.deleteMemory(tenantRequest(caller, params));
        return { success: true, message: 'Memory item deleted' };
      },
    }),
  ];
}
