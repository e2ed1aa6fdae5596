import {
  GroupCommit,
  NotFoundError,
  QuotaExceededError,
  ValidationError,
  type FieldIssue,
  type QuotaCounter,
} from '@agentplatform/service-kit';
import { LRUCache } from 'lru-cache';
import type { Agent } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import { checkMemoryType } from '../domain/memory-rules.js';
import type { IndexChange } from '../search/memory-index-cache.js';
import type { BumpedAgent } from './agent.repository.js';

/** One add waiting for its agent's next group write. */
interface PendingAdd {
  item: MemoryItem;
  /**
   * An add through the API: the write checks the type is enabled for the agent (read once per
   * group, or as this replica knows it: see KnownAgents) and takes a unit of the plan's memories
   * quota. A chat's add brings the agent it already read; its unit is counted with the group's
   * (never refused).
   */
  checked: { plan: string | undefined } | { agent: Agent };
}

/** What the writer reads and writes through: the stores, the quota and this replica's index. */
export interface MemoryWriterPorts {
  agents: {
    find(tenantId: string, agentId: string): Promise<Agent | undefined>;
    bumpMemoryVersion(tenantId: string, agentId: string): Promise<BumpedAgent | undefined>;
  };
  memories: {
    insertMany(items: MemoryItem[]): Promise<Array<undefined | Error>>;
    deleteIds(tenantId: string, ids: string[]): Promise<number>;
    count(tenantId: string, agentId: string): Promise<number>;
  };
  quotas: Pick<QuotaCounter, 'acquire' | 'add' | 'release'>;
  index: {
    apply(tenantId: string, agentId: string, version: number, change: IndexChange): void;
    drop(tenantId: string, agentId: string): void;
  };
  /** Wakes the embedding backlog: the items wait for a vector. */
  backlog: { kick(items: ReadonlyArray<{ content: string }>): void };
}

/**
 * Agents this process has read or bumped, by id: the tenant each belongs to and its memory types
 * as last seen. An agent's tenant never changes. A group for an agent known to be the tenant's,
 * whose API adds all have a type it knows enabled, is not read at all: its quota is taken at
 * once, and the bump after the insert (which answers the agent's types, and finds a deleted agent
 * missing) confirms the types (see writeItems). Any other group reads the agent, taking a known
 * agent's units meanwhile; an unknown agent is read first, so that no tenant's adds ever hold
 * units of another tenant's agent.
 */
type KnownAgents = LRUCache<string, Pick<Agent, 'tenantId' | 'memoryTypes'>>;

/** Agents remembered in `known` at most (least recently used first out). */
const MAX_KNOWN = 10_000;

/** Adds waiting for one agent's write, grouped at most (GroupCommit). */
const MAX_GROUP = 256;

/**
 * The single adds' writer. Adds to one agent that arrive while a write for it is in flight go out
 * together: one quota increment, one insertMany and one version bump per group instead of per add
 * (and one agent read, for an agent this replica does not know). The order of each add's writes is
 * the one the search cache relies on (items first, then the bump), so a group is as safe as a lone
 * add; see writeGroup. One writer per process (main.ts builds it; each unit test its own).
 */
export class MemoryWriter {
  private readonly known: KnownAgents = new LRUCache({ max: MAX_KNOWN });
  private readonly commit = new GroupCommit<PendingAdd, MemoryItem>((_key, adds) => this.writeGroup(adds), MAX_GROUP);

  constructor(private readonly ports: MemoryWriterPorts) {}

  /**
   * Stores an API add: its type must be enabled for the agent, and it takes a unit of the plan's
   * memories quota (refused with QuotaExceededError when none is left). The agent missing: 404.
   */
  add(item: MemoryItem, plan: string | undefined): Promise<MemoryItem> {
    return this.commit.submit(`${item.tenantId}/${item.agentId}`, { item, checked: { plan } });
  }

  /** Stores a chat's add for an agent the caller has read: counted toward the quota, never refused. */
  addForChat(item: MemoryItem, agent: Agent): Promise<MemoryItem> {
    return this.commit.submit(`${item.tenantId}/${item.agentId}`, { item, checked: { agent } });
  }

  /** Bumps the agent's memory version after a change to its items, and tells this replica's index. */
  private async bump(tenantId: string, agentId: string, change: IndexChange): Promise<void> {
    const agent = await this.ports.agents.bumpMemoryVersion(tenantId, agentId);
    if (agent === undefined) this.ports.index.drop(tenantId, agentId);
    else this.ports.index.apply(tenantId, agentId, agent.memoryVersion, change);
  }

  /**
   * Takes `units` of the agent's memories quota at once; when the group does not fit, unit by unit
   * until one is refused, so that the adds that fit are stored and only the rest are refused.
   * Answers, per add, whether it holds a unit, or the refusal.
   */
  private async takeQuota(
    agentId: string,
    plan: string | undefined,
    units: number,
    countActual: () => Promise<number>,
  ): Promise<Array<true | Error>> {
    try {
      await this.ports.quotas.acquire(agentId, 'memories', plan, countActual, units);
      return Array.from({ length: units }, () => true as const);
    } catch (error) {
      if (!(error instanceof QuotaExceededError) || units === 1)
        return Array.from({ length: units }, () => error as Error);
    }
    // Unit by unit until the first refusal: the rest of the group is refused with it (a flood of
    // adds at the limit costs one attempt per group, not one per add).
    const taken: Array<true | Error> = [];
    while (taken.length < units) {
      const outcome = await this.ports.quotas.acquire(agentId, 'memories', plan, countActual).then(
        () => true as const,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      if (outcome === true) taken.push(outcome);
      else while (taken.length < units) taken.push(outcome);
    }
    return taken;
  }

  /** The API adds of a group by plan: their indexes. */
  private apiAddsByPlan(adds: PendingAdd[], keep: (i: number) => boolean): Map<string | undefined, number[]> {
    const byPlan = new Map<string | undefined, number[]>();
    adds.forEach((add, i) => {
      if ('plan' in add.checked && keep(i)) byPlan.set(add.checked.plan, [...(byPlan.get(add.checked.plan) ?? []), i]);
    });
    return byPlan;
  }

  /**
   * Takes the units of the API adds `keep` selects, all at once per plan (unit by unit for a plan
   * whose units do not all fit, see takeQuota). Answers the indexes holding a unit; `results` gets
   * each refusal.
   */
  private async takeUnits(
    adds: PendingAdd[],
    keep: (i: number) => boolean,
    results: Array<MemoryItem | Error | undefined>,
  ): Promise<number[]> {
    const { tenantId, agentId } = adds[0].item;
    const held: number[] = [];
    for (const [plan, indexes] of this.apiAddsByPlan(adds, keep)) {
      const outcomes = await this.takeQuota(agentId, plan, indexes.length, () =>
        this.ports.memories.count(tenantId, agentId),
      );
      indexes.forEach((i, n) => {
        const outcome = outcomes[n];
        if (outcome === true) held.push(i);
        else results[i] = outcome;
      });
    }
    return held;
  }

  /**
   * The group's reads: the agent (unless every add brought it, or this replica knows it: see
   * KnownAgents) and the API adds' quota units. For an agent known to be the tenant's that is read
   * all the same (an add's type is not among the types known), the units of every API add are
   * taken, all at once per plan, while the agent is read; the units of adds whose type then fails
   * its check go back, and a plan whose units did not all fit is taken again, unit by unit, for the
   * checked adds only (as when the agent is read first), so that no add of the group is refused for
   * a unit held by one that is itself refused.
   * Answers the indexes holding a unit (undefined: the agent is missing, every unit given back);
   * `results` gets each refusal.
   */
  private async readGroup(
    adds: PendingAdd[],
    results: Array<MemoryItem | Error | undefined>,
  ): Promise<number[] | undefined> {
    const { tenantId, agentId } = adds[0].item;
    const countActual = () => this.ports.memories.count(tenantId, agentId);
    const api = (i: number) => 'plan' in adds[i].checked;
    if (!adds.some((_, i) => api(i))) return [];
    const seen = this.known.get(agentId);
    const known = seen?.tenantId === tenantId;
    if (known && adds.every((add, i) => !api(i) || seen.memoryTypes.includes(add.item.memoryType))) {
      return this.takeUnits(adds, () => true, results);
    }
    const early = known
      ? [...this.apiAddsByPlan(adds, () => true)].map(([plan, indexes]) =>
          this.ports.quotas.acquire(agentId, 'memories', plan, countActual, indexes.length).then(
            () => ({ plan, indexes }),
            () => undefined, // refused or failed: taken again below, unit by unit
          ),
        )
      : [];
    const giveBack = (units: number) => this.ports.quotas.release(agentId, 'memories', units);
    const agent = await this.ports.agents.find(tenantId, agentId).catch(async (error: unknown) => {
      for (const taken of await Promise.all(early)) if (taken) await giveBack(taken.indexes.length);
      throw error;
    });
    const tookEarly = (await Promise.all(early)).filter((taken) => taken !== undefined);
    if (!agent) {
      if (known) this.known.delete(agentId);
      for (const taken of tookEarly) await giveBack(taken.indexes.length);
      return undefined;
    }
    this.known.set(agentId, { tenantId, memoryTypes: agent.memoryTypes });

    adds.forEach((add, i) => {
      if (!('plan' in add.checked)) return;
      const issues: FieldIssue[] = [];
      checkMemoryType(agent, add.item.memoryType, issues);
      if (issues.length > 0) results[i] = new ValidationError(issues);
    });
    const held: number[] = [];
    const checked = (i: number) => results[i] === undefined;
    for (const [plan, indexes] of this.apiAddsByPlan(adds, checked)) {
      const taken = tookEarly.find((t) => t.plan === plan);
      if (!taken) continue;
      held.push(...indexes);
      await giveBack(taken.indexes.length - indexes.length);
    }
    const takenEarly = (i: number) => tookEarly.some((taken) => taken.indexes.includes(i));
    held.push(...(await this.takeUnits(adds, (i) => checked(i) && !takenEarly(i), results)));
    // A plan whose adds were all refused by their type check: its early units go back.
    for (const taken of tookEarly) {
      if (!taken.indexes.some(checked)) await giveBack(taken.indexes.length);
    }
    return held;
  }

  /**
   * Writes one agent's group of adds: the reads (readGroup: the agent unless every add brought it
   * or this replica knows it, the type checks, the quota, one increment for the group), the chats'
   * quota units, the items (one insertMany), then the agent's memory version (one bump, after the
   * items: see MemoryIndexCache). The bump is addressed to the agent in the tenant, so it also
   * checks that the agent still exists: an agent deleted since the read (on any replica) gets no
   * memories from a write that answers after the delete did; its items are removed again and the
   * adds answer 404. The bump answers the agent's memory types too: an API add whose type was
   * disabled since (or since this replica last saw the agent) is removed again and answers 400, as
   * it would have had the change come first.
   *
   * A crash after the insert and before the bump answers nobody; the items are stored without a
   * vector, and the embedding backlog's store of their vectors bumps the version, which brings every
   * replica's cached index up to date.
   */
  private async writeGroup(adds: PendingAdd[]): Promise<Array<MemoryItem | Error>> {
    const results: Array<MemoryItem | Error | undefined> = adds.map(() => undefined);
    const held = await this.readGroup(adds, results);
    if (!held) return adds.map(() => new NotFoundError('Agent'));
    return this.writeItems(adds, results, held);
  }

  /** writeGroup's writes: `held` are the adds holding a quota unit. */
  private async writeItems(
    adds: PendingAdd[],
    results: Array<MemoryItem | Error | undefined>,
    held: number[],
  ): Promise<Array<MemoryItem | Error>> {
    const { tenantId, agentId } = adds[0].item;
    // Chats' episodic memories: counted toward the quota, never refused (one increment per group).
    const chats = adds.map((_, i) => i).filter((i) => !('plan' in adds[i].checked));
    if (chats.length > 0) {
      await this.ports.quotas.add(agentId, 'memories', chats.length);
      held.push(...chats);
    }
    const release = (indexes: number[]) =>
      this.ports.quotas.release(agentId, 'memories', indexes.filter((i) => held.includes(i)).length);

    const writes = adds.map((_, i) => i).filter((i) => results[i] === undefined);
    if (writes.length === 0) return results as Array<MemoryItem | Error>;
    const stored: number[] = [];
    let agent: BumpedAgent | undefined;
    try {
      const inserted = await this.ports.memories.insertMany(writes.map((i) => adds[i].item));
      writes.forEach((i, n) => {
        const error = inserted[n];
        if (error) results[i] = error;
        else stored.push(i);
      });
      await release(writes.filter((i) => !stored.includes(i)));
      if (stored.length === 0) return results as Array<MemoryItem | Error>;
      agent = await this.ports.agents.bumpMemoryVersion(tenantId, agentId);
      if (agent === undefined) {
        // Deleted since the read: its delete has removed (or is removing) its items; these too.
        this.known.delete(agentId);
        await this.ports.memories.deleteIds(
          tenantId,
          stored.map((i) => adds[i].item.id),
        );
        this.ports.index.drop(tenantId, agentId);
        await release(stored);
        for (const i of stored) results[i] = new NotFoundError('Agent');
        return results as Array<MemoryItem | Error>;
      }
    } catch (error) {
      await release(writes).catch(() => undefined);
      throw error;
    }
    // From here the stored items keep their units: a failure leaves them as a crash would.
    this.known.set(agentId, { tenantId, memoryTypes: agent.memoryTypes });
    const disabled: number[] = [];
    for (const i of stored) {
      const issues: FieldIssue[] = [];
      if ('plan' in adds[i].checked) checkMemoryType(agent, adds[i].item.memoryType, issues);
      if (issues.length === 0) continue;
      results[i] = new ValidationError(issues);
      disabled.push(i);
    }
    const kept = stored.filter((i) => !disabled.includes(i));
    const upsert = kept.map((i) => adds[i].item);
    if (disabled.length === 0) this.ports.index.apply(tenantId, agentId, agent.memoryVersion, { upsert });
    else {
      // The version just taken covers the refused items too: once they are removed, a second bump
      // makes every replica that loaded its index meanwhile load it again.
      await this.ports.memories.deleteIds(
        tenantId,
        disabled.map((i) => adds[i].item.id),
      );
      await release(disabled);
      this.ports.index.drop(tenantId, agentId);
      await this.bump(tenantId, agentId, { upsert });
    }
    this.ports.backlog.kick(upsert);
    for (const i of kept) results[i] = adds[i].item;
    return results as Array<MemoryItem | Error>;
  }
}
