import type { QuotaCounter } from '@agentplatform/service-kit';
import type { ClientSession } from 'mongoose';
import type { Agent } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import type { AgentChanges, BumpedAgent } from '../persistence/agent.repository.js';
import type { MemoryChanges } from '../persistence/memory.repository.js';
import type { IndexChange } from '../search/memory-index-cache.js';
import type { MemoryIndex } from '../search/memory-index.js';

/** The tenant's agents (persistence/agent.repository.ts). */
export interface AgentStore {
  insert(agent: Agent, session?: ClientSession): Promise<void>;
  find(tenantId: string, id: string): Promise<Agent | undefined>;
  memoryVersion(tenantId: string, id: string): Promise<number | undefined>;
  count(tenantId: string): Promise<number>;
  list(
    tenantId: string,
    filter: { type?: string; status?: string },
    skip: number,
    limit: number,
  ): Promise<{ agents: Agent[]; total: number }>;
  update(
    tenantId: string,
    id: string,
    changes: AgentChanges,
    now: Date,
    session?: ClientSession,
  ): Promise<Agent | undefined>;
  /** After a change to the agent's items: its new memory version and types, or undefined (deleted). */
  bumpMemoryVersion(tenantId: string, id: string): Promise<BumpedAgent | undefined>;
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** The tenant's memory items (persistence/memory.repository.ts). */
export interface MemoryStore {
  insertMany(items: MemoryItem[]): Promise<Array<undefined | Error>>;
  deleteIds(tenantId: string, ids: string[]): Promise<number>;
  find(tenantId: string, id: string, session?: ClientSession): Promise<MemoryItem | undefined>;
  /** `count`: the list's total when the page does not end it (by default the list is counted). */
  list(
    tenantId: string,
    filter: { agentId?: string; memoryType?: string },
    skip: number,
    limit: number,
    count?: () => Promise<number>,
  ): Promise<{ items: MemoryItem[]; total: number }>;
  loadAgent(tenantId: string, agentId: string): Promise<MemoryItem[]>;
  count(tenantId: string, agentId: string, session?: ClientSession): Promise<number>;
  update(tenantId: string, id: string, changes: MemoryChanges, now: Date): Promise<MemoryItem | undefined>;
  delete(tenantId: string, id: string): Promise<MemoryItem | undefined>;
  /** A new agent, which has no memory yet. */
  openAgent(agentId: string): Promise<void>;
  deleteAgent(tenantId: string, agentId: string): Promise<number>;
  mergeInto(
    tenantId: string,
    keptId: string,
    metadata: Record<string, unknown>,
    absorbed: MemoryItem[],
    now: Date,
    session?: ClientSession,
  ): Promise<void>;
}

/** This replica's search indexes, one per agent and memory version (search/memory-index-cache.ts). */
export interface SearchIndex {
  get(tenantId: string, agentId: string, version: number): Promise<MemoryIndex>;
  apply(tenantId: string, agentId: string, version: number, change: IndexChange): void;
  drop(tenantId: string, agentId: string): void;
}

/** Single adds, grouped per agent behind the port (persistence/memory-writer.ts). */
export interface MemoryWrites {
  /** An API add: the type enabled for the agent and a unit of the plan's quota, checked with the write. */
  add(item: MemoryItem, plan: string | undefined): Promise<MemoryItem>;
  /** A chat's add for an agent the caller has read: counted toward the quota, never refused. */
  addForChat(item: MemoryItem, agent: Agent): Promise<MemoryItem>;
}

/** Agents per tenant and memories per agent (docs/design.md section 5). */
export type Quotas = Pick<QuotaCounter, 'acquire' | 'add' | 'release' | 'forget' | 'count'>;
