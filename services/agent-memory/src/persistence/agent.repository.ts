import { documentsOf } from '@agentplatform/service-kit';
import type { ClientSession, Connection, Model, mongo } from 'mongoose';
import type { Agent, AgentConfig, AgentStatus, AgentType, MemoryType } from '../domain/agent.js';
import { sealedKeyIds, type ToolGrant } from '../domain/tools.js';
import { agentModel, type AgentDocument } from './agent.schema.js';

function toAgent(doc: AgentDocument): Agent {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    name: doc.name,
    type: doc.type as AgentType,
    status: doc.status as AgentStatus,
    description: doc.description ?? '',
    memoryTypes: (doc.memory_types ?? []) as MemoryType[],
    config: (doc.config ?? {}) as AgentConfig,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
    memoryVersion: doc.memory_version ?? 0,
  };
}

/** A new agent's stored document (memory version 0). */
function fromAgent(agent: Agent): AgentDocument {
  return {
    _id: agent.id,
    tenant_id: agent.tenantId,
    name: agent.name,
    type: agent.type,
    status: agent.status,
    description: agent.description,
    memory_types: agent.memoryTypes,
    config: { ...agent.config },
    memory_version: 0,
    tool_key_ids: sealedKeyIds(agent.config.tools),
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}

export interface AgentChanges {
  name?: string;
  type?: AgentType;
  status?: AgentStatus;
  description?: string;
  memoryTypes?: MemoryType[];
  config?: AgentConfig;
}

/** An agent's tool grants as stored, for re-sealing their header values under the current key. */
export interface StoredTools {
  id: string;
  tenantId: string;
  tools: ToolGrant[];
  /** Stored before header values were bound to their origin: sealed with the older context. */
  unbound: boolean;
  updatedAt: Date;
}

/** An agent as a version bump leaves it: what a write of its memories checks against. */
export type BumpedAgent = Pick<Agent, 'memoryVersion' | 'memoryTypes'>;

export class AgentRepository {
  private readonly model: Model<AgentDocument>;
  /**
   * The driver's collection, for the reads and writes on every request (an add's or a chat's
   * agent, the list and its count, the memory version's bump): a mongoose query builds, casts
   * and wraps each one, which cost about as much CPU as the driver's own round trip here. The
   * documents are plain either way (these reads were `lean`). Taken on first use: the database
   * exists once the connection is open.
   */
  private documents: mongo.Collection<AgentDocument> | undefined;

  constructor(connection: Connection) {
    this.model = agentModel(connection);
  }

  private get collection(): mongo.Collection<AgentDocument> {
    return (this.documents ??= documentsOf<AgentDocument>(this.model));
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async insert(agent: Agent, session?: ClientSession): Promise<void> {
    await this.model.create([fromAgent(agent)], { session });
  }

  /*
   * Reads address the agent by `_id` alone and check the tenant here: another tenant's agent is
   * "not found" all the same, and a filter of exactly the unique key is the one every MongoDB
   * (and the local stand-in, which scans for anything else) answers from its index.
   */
  async find(tenantId: string, id: string): Promise<Agent | undefined> {
    const doc = await this.collection.findOne({ _id: id });
    return doc && doc.tenant_id === tenantId ? toAgent(doc) : undefined;
  }

  /** The agent's memory version only: the cheap check in front of every cached search. */
  async memoryVersion(tenantId: string, id: string): Promise<number | undefined> {
    const doc = await this.collection.findOne({ _id: id }, { projection: { tenant_id: 1, memory_version: 1 } });
    return doc && doc.tenant_id === tenantId ? (doc.memory_version ?? 0) : undefined;
  }

  async count(tenantId: string): Promise<number> {
    return this.model.countDocuments({ tenant_id: tenantId });
  }

  async list(
    tenantId: string,
    filter: { type?: string; status?: string },
    skip: number,
    limit: number,
  ): Promise<{ agents: Agent[]; total: number }> {
    const query: Record<string, unknown> = { tenant_id: tenantId };
    if (filter.type) query.type = filter.type;
    if (filter.status) query.status = filter.status;
    const docs = await this.collection.find(query, { sort: { _id: -1 }, skip, limit }).toArray();
    // A page that is not full ends the list (findPage's rule): no count is needed for its total.
    const ends = docs.length < limit && (docs.length > 0 || skip === 0);
    const total = ends ? skip + docs.length : await this.collection.countDocuments(query);
    return { agents: docs.map(toAgent), total };
  }

  async update(
    tenantId: string,
    id: string,
    changes: AgentChanges,
    now: Date,
    session?: ClientSession,
  ): Promise<Agent | undefined> {
    const set: Record<string, unknown> = { updated_at: now };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.type !== undefined) set.type = changes.type;
    if (changes.status !== undefined) set.status = changes.status;
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.memoryTypes !== undefined) set.memory_types = changes.memoryTypes;
    if (changes.config !== undefined) {
      set.config = changes.config;
      set.tool_key_ids = sealedKeyIds(changes.config.tools);
    }
    const doc = await this.model
      .findOneAndUpdate({ _id: id, tenant_id: tenantId }, { $set: set }, { returnDocument: 'after', session })
      .lean<AgentDocument>();
    return doc ? toAgent(doc) : undefined;
  }

  /**
   * Marks a change to the agent's memory items, after the items were written: a replica whose
   * cache holds version v knows it has seen every write whose bump returned <= v. Answers the
   * agent's version and memory types after the bump (a group of single adds checks its types
   * against these: see MemoryWriter's writeItems), or undefined for an agent the tenant does
   * not have (deleted).
   */
  async bumpMemoryVersion(tenantId: string, id: string): Promise<BumpedAgent | undefined> {
    const doc = await this.collection.findOneAndUpdate(
      { _id: id, tenant_id: tenantId },
      { $inc: { memory_version: 1 } },
      { returnDocument: 'after', projection: { memory_version: 1, memory_types: 1 } },
    );
    return doc
      ? { memoryVersion: doc.memory_version ?? 0, memoryTypes: (doc.memory_types ?? []) as MemoryType[] }
      : undefined;
  }

  /**
   * Agents of every tenant (a start-up task, like the webhook service's re-sealing) whose tool
   * header values name a data key other than `keyId`, or that were stored before key ids were
   * recorded and hold header values.
   */
  async withToolKeysOtherThan(keyId: string): Promise<StoredTools[]> {
    const docs = await this.collection
      .find(
        {
          $or: [
            { tool_key_ids: { $elemMatch: { $ne: keyId } } },
            { tool_key_ids: { $exists: false }, 'config.tools.headers': { $exists: true } },
          ],
        },
        { projection: { tenant_id: 1, 'config.tools': 1, tool_key_ids: 1, updated_at: 1 } },
      )
      .toArray();
    return docs.map((doc) => ({
      id: doc._id,
      tenantId: doc.tenant_id,
      tools: ((doc.config ?? {}).tools ?? []) as ToolGrant[],
      unbound: doc.tool_key_ids === undefined,
      updatedAt: doc.updated_at,
    }));
  }

  /**
   * Stores re-sealed grants, unless the agent changed since it was read (an update, or another
   * replica's re-sealing, wins). Answers whether this call wrote them.
   */
  async replaceSealedTools(agent: StoredTools, tools: ToolGrant[]): Promise<boolean> {
    const result = await this.collection.updateOne(
      { _id: agent.id, tenant_id: agent.tenantId, updated_at: agent.updatedAt },
      { $set: { 'config.tools': tools, tool_key_ids: sealedKeyIds(tools) } },
    );
    return result.modifiedCount > 0;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id, tenant_id: tenantId });
    return result.deletedCount > 0;
  }
}
