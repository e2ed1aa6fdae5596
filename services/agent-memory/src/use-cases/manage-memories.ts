import {
  GroupCommit,
  newId,
  NotFoundError,
  QuotaExceededError,
  ValidationError,
  type FieldIssue,
  paging,
} from '@agentplatform/service-kit';
import { LRUCache } from 'lru-cache';
import { LIMITS, MEMORY_TYPES, type Agent, type MemoryType } from '../domain/agent.js';
import type { MemoryItem } from '../domain/memory.js';
import type { BumpedAgent } from '../persistence/agent.repository.js';
import type { MemoryChanges } from '../persistence/memory.repository.js';
import type { UseCaseDeps } from './deps.js';

export interface MemoryInput {
  agentId: string;
  memoryType?: string;
  content: string;
  metadata?: Record<string, unknown>;
  /** The tenant's plan: the memories quota per agent (docs/design.md section 5). */
  plan?: string;
}

function checkContent(content: string, issues: FieldIssue[]): string {
  const trimmed = content.trim();
  if (trimmed === '') issues.push({ field: 'content', message: 'must not be empty' });
  else if (content.length > LIMITS.memoryContent) {
    issues.push({ field: 'content', message: `must be at most ${LIMITS.memoryContent} characters` });
  }
  return trimmed;
}

/** A memory type must be a known one and enabled in the agent's memory_types. */
export function checkMemoryType(
  agent: Pick<Agent, 'memoryTypes'> | undefined,
  value: string,
  issues: FieldIssue[],
): MemoryType {
  if (!(MEMORY_TYPES as readonly string[]).includes(value)) {
    issues.push({ field: 'memory_type', message: `must be one of ${MEMORY_TYPES.join(', ')}` });
  } else if (agent && !agent.memoryTypes.includes(value as MemoryType)) {
    issues.push({
      field: 'memory_type',
      message: `is not enabled for this agent (memory_types: ${agent.memoryTypes.join(', ') || 'none'})`,
    });
  }
  return value as MemoryType;
}

async function findAgent(deps: UseCaseDeps, tenantId: string, agentId: string): Promise<Agent> {
  const agent = agentId ? await deps.agents.find(tenantId, agentId) : undefined;
  if (!agent) throw new NotFoundError('Agent');
  return agent;
}

/** One add waiting for its agent's next group write. */
interface PendingAdd {
  item: MemoryItem;
  /**
   * An add through the API: the write checks the type is enabled for the agent (read once per
   * group, or as this replica knows it: see Writer) and takes a unit of the plan's memories
   * quota. A chat's add brings the agent it already read; its unit is counted with the group's
   * (never refused).
   */
  checked: { plan: string | undefined } | { agent: Agent };
}

/*
 * Adds to one agent that arrive while a write for it is in flight go out together: one quota
 * increment, one insertMany and one version bump per group instead of per add (and one agent
 * read, for an agent this replica does not know).
 * The order of each add's writes is the one the search cache relies on (items first, then the
 * bump), so a group is as safe as a lone add; see writeGroup. One writer per deps (a process
 * builds one; each unit test its own).
 */
interface Writer {
  commit: GroupCommit<PendingAdd, MemoryItem>;
  known: KnownAgents;
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

const writers = new WeakMap<UseCaseDeps, Writer>();

/** Agents remembered in `known` at most (least recently used first out). */
const MAX_KNOWN = 10_000;

function writer(deps: UseCaseDeps): Writer {
  let found = writers.get(deps);
  if (!found) {
    const known: KnownAgents = new LRUCache({ max: MAX_KNOWN });
    found = { commit: new GroupCommit((_key, adds) => writeGroup(deps, known, adds), 256), known };
    writers.set(deps, found);
  }
  return found;
}

/**
 * Takes `units` of the agent's memories quota at once; when the group does not fit, unit by unit
 * until one is refused, so that the adds that fit are stored and only the rest are refused.
 * Answers, per add, whether it holds a unit, or the refusal.
 */
async function takeQuota(
  deps: UseCaseDeps,
  agentId: string,
  plan: string | undefined,
  units: number,
  countActual: () => Promise<number>,
): Promise<Array<true | Error>> {
  try {
    await deps.quotas.acquire(agentId, 'memories', plan, countActual, units);
    return Array.from({ length: units }, () => true as const);
  } catch (error) {
    if (!(error instanceof QuotaExceededError) || units === 1)
      return Array.from({ length: units }, () => error as Error);
  }
  // Unit by unit until the first refusal: the rest of the group is refused with it (a flood of
  // adds at the limit costs one attempt per group, not one per add).
  const taken: Array<true | Error> = [];
  while (taken.length < units) {
    const outcome = await deps.quotas.acquire(agentId, 'memories', plan, countActual).then(
      () => true as const,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    if (outcome === true) taken.push(outcome);
    else while (taken.length < units) taken.push(outcome);
  }
  return taken;
}

/** The API adds of a group by plan: their indexes. */
function apiAddsByPlan(adds: PendingAdd[], keep: (i: number) => boolean): Map<string | undefined, number[]> {
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
async function takeUnits(
  deps: UseCaseDeps,
  adds: PendingAdd[],
  keep: (i: number) => boolean,
  results: Array<MemoryItem | Error | undefined>,
): Promise<number[]> {
  const { tenantId, agentId } = adds[0].item;
  const held: number[] = [];
  for (const [plan, indexes] of apiAddsByPlan(adds, keep)) {
    const outcomes = await takeQuota(deps, agentId, plan, indexes.length, () => deps.memories.count(tenantId, agentId));
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
async function readGroup(
  deps: UseCaseDeps,
  knownAgents: KnownAgents,
  adds: PendingAdd[],
  results: Array<MemoryItem | Error | undefined>,
): Promise<number[] | undefined> {
  const { tenantId, agentId } = adds[0].item;
  const countActual = () => deps.memories.count(tenantId, agentId);
  const api = (i: number) => 'plan' in adds[i].checked;
  if (!adds.some((_, i) => api(i))) return [];
  const seen = knownAgents.get(agentId);
  const known = seen?.tenantId === tenantId;
  if (known && adds.every((add, i) => !api(i) || seen.memoryTypes.includes(add.item.memoryType))) {
    return takeUnits(deps, adds, () => true, results);
  }
  const early = known
    ? [...apiAddsByPlan(adds, () => true)].map(([plan, indexes]) =>
        deps.quotas.acquire(agentId, 'memories', plan, countActual, indexes.length).then(
          () => ({ plan, indexes }),
          () => undefined, // refused or failed: taken again below, unit by unit
        ),
      )
    : [];
  const giveBack = (units: number) => deps.quotas.release(agentId, 'memories', units);
  const agent = await deps.agents.find(tenantId, agentId).catch(async (error: unknown) => {
    for (const taken of await Promise.all(early)) if (taken) await giveBack(taken.indexes.length);
    throw error;
  });
  const tookEarly = (await Promise.all(early)).filter((taken) => taken !== undefined);
  if (!agent) {
    if (known) knownAgents.delete(agentId);
    for (const taken of tookEarly) await giveBack(taken.indexes.length);
    return undefined;
  }
  knownAgents.set(agentId, { tenantId, memoryTypes: agent.memoryTypes });

  adds.forEach((add, i) => {
    if (!('plan' in add.checked)) return;
    const issues: FieldIssue[] = [];
    checkMemoryType(agent, add.item.memoryType, issues);
    if (issues.length > 0) results[i] = new ValidationError(issues);
  });
  const held: number[] = [];
  const checked = (i: number) => results[i] === undefined;
  for (const [plan, indexes] of apiAddsByPlan(adds, checked)) {
    const taken = tookEarly.find((t) => t.plan === plan);
    if (!taken) continue;
    held.push(...indexes);
    await giveBack(taken.indexes.length - indexes.length);
  }
  const takenEarly = (i: number) => tookEarly.some((taken) => taken.indexes.includes(i));
  held.push(...(await takeUnits(deps, adds, (i) => checked(i) && !takenEarly(i), results)));
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
async function writeGroup(
  deps: UseCaseDeps,
  knownAgents: KnownAgents,
  adds: PendingAdd[],
): Promise<Array<MemoryItem | Error>> {
  const results: Array<MemoryItem | Error | undefined> = adds.map(() => undefined);
  const held = await readGroup(deps, knownAgents, adds, results);
  if (!held) return adds.map(() => new NotFoundError('Agent'));
  return writeItems(deps, knownAgents, adds, results, held);
}

/** writeGroup's writes: `held` are the adds holding a quota unit. */
async function writeItems(
  deps: UseCaseDeps,
  knownAgents: KnownAgents,
  adds: PendingAdd[],
  results: Array<MemoryItem | Error | undefined>,
  held: number[],
): Promise<Array<MemoryItem | Error>> {
  const { tenantId, agentId } = adds[0].item;
  // Chats' episodic memories: counted toward the quota, never refused (one increment per group).
  const chats = adds.map((_, i) => i).filter((i) => !('plan' in adds[i].checked));
  if (chats.length > 0) {
    await deps.quotas.add(agentId, 'memories', chats.length);
    held.push(...chats);
  }
  const release = (indexes: number[]) =>
    deps.quotas.release(agentId, 'memories', indexes.filter((i) => held.includes(i)).length);

  const writes = adds.map((_, i) => i).filter((i) => results[i] === undefined);
  if (writes.length === 0) return results as Array<MemoryItem | Error>;
  const stored: number[] = [];
  let agent: BumpedAgent | undefined;
  try {
    const inserted = await deps.memories.insertMany(writes.map((i) => adds[i].item));
    writes.forEach((i, n) => {
      const error = inserted[n];
      if (error) results[i] = error;
      else stored.push(i);
    });
    await release(writes.filter((i) => !stored.includes(i)));
    if (stored.length === 0) return results as Array<MemoryItem | Error>;
    agent = await deps.agents.bumpMemoryVersion(tenantId, agentId);
    if (agent === undefined) {
      // Deleted since the read: its delete has removed (or is removing) its items; these too.
      knownAgents.delete(agentId);
      await deps.memories.deleteIds(
        tenantId,
        stored.map((i) => adds[i].item.id),
      );
      deps.index.drop(tenantId, agentId);
      await release(stored);
      for (const i of stored) results[i] = new NotFoundError('Agent');
      return results as Array<MemoryItem | Error>;
    }
  } catch (error) {
    await release(writes).catch(() => undefined);
    throw error;
  }
  // From here the stored items keep their units: a failure leaves them as a crash would.
  knownAgents.set(agentId, { tenantId, memoryTypes: agent.memoryTypes });
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
  if (disabled.length === 0) deps.index.apply(tenantId, agentId, agent.memoryVersion, { upsert });
  else {
    // The version just taken covers the refused items too: once they are removed, a second bump
    // makes every replica that loaded its index meanwhile load it again.
    await deps.memories.deleteIds(
      tenantId,
      disabled.map((i) => adds[i].item.id),
    );
    await release(disabled);
    deps.index.drop(tenantId, agentId);
    await bumped(deps, tenantId, agentId, { upsert });
  }
  deps.backlog.kick();
  for (const i of kept) results[i] = adds[i].item;
  return results as Array<MemoryItem | Error>;
}

function newItem(
  agent: { tenantId: string; id: string },
  input: { memoryType: MemoryType; content: string; metadata: Record<string, unknown> },
): MemoryItem {
  const now = new Date();
  return {
    id: newId('mem'),
    tenantId: agent.tenantId,
    agentId: agent.id,
    memoryType: input.memoryType,
    content: input.content,
    metadata: input.metadata,
    mergedFrom: [],
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Stores a chat's item for an agent the caller has read (counted toward the memories quota with
 * the group's write, never refused), then
 * bumps the agent's memory version and applies the item to this replica's cached index: it is
 * lexically searchable at once. Its vector comes from the embedding backlog, off the request path.
 */
export async function storeMemory(
  deps: UseCaseDeps,
  agent: Agent,
  input: { memoryType: MemoryType; content: string; metadata: Record<string, unknown> },
): Promise<MemoryItem> {
  return writer(deps).commit.submit(`${agent.tenantId}/${agent.id}`, {
    item: newItem(agent, input),
    checked: { agent },
  });
}

/** Bumps the agent's memory version after a change to its items, and tells this replica's index. */
export async function bumped(
  deps: UseCaseDeps,
  tenantId: string,
  agentId: string,
  change: { upsert?: MemoryItem[]; remove?: string[] },
): Promise<void> {
  const agent = await deps.agents.bumpMemoryVersion(tenantId, agentId);
  if (agent === undefined) deps.index.drop(tenantId, agentId);
  else deps.index.apply(tenantId, agentId, agent.memoryVersion, change);
}

export async function addMemory(deps: UseCaseDeps, input: MemoryInput & { tenantId: string }): Promise<MemoryItem> {
  const { tenantId } = input;
  const issues: FieldIssue[] = [];
  if (!input.agentId) issues.push({ field: 'agent_id', message: 'is required' });
  const content = checkContent(input.content ?? '', issues);
  const memoryType = checkMemoryType(undefined, input.memoryType ?? 'semantic', issues);
  if (issues.length > 0) throw new ValidationError(issues);
  return writer(deps).commit.submit(`${tenantId}/${input.agentId}`, {
    item: newItem({ tenantId, id: input.agentId }, { memoryType, content, metadata: input.metadata ?? {} }),
    checked: { plan: input.plan },
  });
}

export interface MemoryBatchInput {
  agentId: string;
  items: Array<{ memoryType?: string; content: string; metadata?: Record<string, unknown> }>;
  /** The tenant's plan: the memories quota per agent (docs/design.md section 5). */
  plan?: string;
}

/** An item's issues, named by its place in the batch (`items[3].content`). */
const inBatch = (index: number, issues: FieldIssue[]): FieldIssue[] =>
  issues.map((issue) => ({ ...issue, field: `items[${index}].${issue.field}` }));

/**
 * Adds 1 to LIMITS.memoryBatch items to one agent, all or none: every item is checked before
 * anything is written (all issues reported together, each named by its place), the quota is taken
 * for the whole batch at once (a batch that does not fit is refused whole, however many parallel
 * batches race for the last units), then one insertMany and one version bump, in that order (see
 * writeGroup). Answers the stored items in the request's order, each as a single add answers it.
 *
 * A batch bypasses the single adds' group commit: it is a group already, and its quota is all or
 * none where a group's is per add. A crash inside the write leaves what a crashed single add
 * leaves: items stored without an answer, their vectors and version bump brought by the backlog.
 */
export async function addMemories(
  deps: UseCaseDeps,
  input: MemoryBatchInput & { tenantId: string },
): Promise<MemoryItem[]> {
  const { tenantId } = input;
  const issues: FieldIssue[] = [];
  if (!input.agentId) issues.push({ field: 'agent_id', message: 'is required' });
  const given = input.items ?? [];
  if (given.length === 0 || given.length > LIMITS.memoryBatch) {
    issues.push({ field: 'items', message: `must hold 1 to ${LIMITS.memoryBatch} items` });
  }
  const fields = given.map((item, i) => {
    const own: FieldIssue[] = [];
    const content = checkContent(item.content ?? '', own);
    const memoryType = checkMemoryType(undefined, item.memoryType ?? 'semantic', own);
    issues.push(...inBatch(i, own));
    return { content, memoryType, metadata: item.metadata ?? {} };
  });
  if (issues.length > 0) throw new ValidationError(issues);

  const agent = await findAgent(deps, tenantId, input.agentId);
  fields.forEach((item, i) => {
    const own: FieldIssue[] = [];
    checkMemoryType(agent, item.memoryType, own);
    issues.push(...inBatch(i, own));
  });
  if (issues.length > 0) throw new ValidationError(issues);

  const items = fields.map((item) => newItem(agent, item));
  const release = await deps.quotas.acquire(
    agent.id,
    'memories',
    input.plan,
    () => deps.memories.count(tenantId, agent.id),
    items.length,
  );
  try {
    const inserted = await deps.memories.insertMany(items);
    const failed = inserted.find((outcome) => outcome !== undefined);
    if (failed) {
      await deps.memories.deleteIds(
        tenantId,
        items.filter((_, n) => inserted[n] === undefined).map((item) => item.id),
      );
      throw failed;
    }
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  const bumpedAgent = await deps.agents.bumpMemoryVersion(tenantId, agent.id);
  if (bumpedAgent === undefined) {
    // Deleted since the read: its delete has removed (or is removing) its items; these too.
    await deps.memories.deleteIds(
      tenantId,
      items.map((item) => item.id),
    );
    deps.index.drop(tenantId, agent.id);
    throw new NotFoundError('Agent');
  }
  deps.index.apply(tenantId, agent.id, bumpedAgent.memoryVersion, { upsert: items });
  deps.backlog.kick();
  return items;
}

export async function getMemory(deps: UseCaseDeps, input: { tenantId: string; memoryId: string }): Promise<MemoryItem> {
  const { tenantId } = input;
  const item = await deps.memories.find(tenantId, input.memoryId);
  if (!item) throw new NotFoundError('Memory item');
  return item;
}

export async function listMemories(
  deps: UseCaseDeps,
  input: { tenantId: string; agentId?: string; memoryType?: string; page: number; perPage: number },
): Promise<{ items: MemoryItem[]; total: number; page: number; perPage: number }> {
  const { tenantId } = input;
  if (input.memoryType) {
    const issues: FieldIssue[] = [];
    checkMemoryType(undefined, input.memoryType, issues);
    if (issues.length > 0) throw new ValidationError(issues);
  }
  if (input.agentId) await findAgent(deps, tenantId, input.agentId);
  const { page, perPage, skip } = paging(input.page, input.perPage);
  const { items, total } = await deps.memories.list(tenantId, input, skip, perPage);
  return { items, total, page, perPage };
}

export async function updateMemory(
  deps: UseCaseDeps,
  input: {
    tenantId: string;
    memoryId: string;
    content?: string;
    metadata?: Record<string, unknown>;
    memoryType?: string;
  },
): Promise<MemoryItem> {
  const { tenantId } = input;
  const issues: FieldIssue[] = [];
  const changes: MemoryChanges = {};
  if (input.content !== undefined) changes.content = checkContent(input.content, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const current = await getMemory(deps, { tenantId, memoryId: input.memoryId });
  if (input.memoryType !== undefined) {
    const agent = await deps.agents.find(tenantId, current.agentId);
    changes.memoryType = checkMemoryType(agent, input.memoryType, issues);
    if (issues.length > 0) throw new ValidationError(issues);
  }
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  // Same content: the vector stays; new content: the item waits for a new one (lexical until then).
  if (changes.content === current.content) delete changes.content;
  const updated = await deps.memories.update(tenantId, input.memoryId, changes, new Date());
  if (!updated) throw new NotFoundError('Memory item');
  await bumped(deps, tenantId, updated.agentId, { upsert: [updated] });
  if (changes.content !== undefined) deps.backlog.kick();
  return updated;
}

export async function deleteMemory(deps: UseCaseDeps, input: { tenantId: string; memoryId: string }): Promise<void> {
  const { tenantId } = input;
  const deleted = await deps.memories.delete(tenantId, input.memoryId);
  if (!deleted) throw new NotFoundError('Memory item');
  await deps.quotas.release(deleted.agentId, 'memories');
  await bumped(deps, tenantId, deleted.agentId, { remove: [deleted.id] });
}
