import { sealedKeyId } from '../domain/sealed-headers.js';
import type { Execution, ExecutionChanges, ExecutionStatus, SealedSnapshot } from '../domain/execution.types.js';
import { NO_LEASE, type Lease } from '../domain/lease.js';
import type { ClaimState, ScheduleClaim } from '../domain/schedule-claim.types.js';
import type { StatusCounts } from '../domain/statistics.js';
import type { Workflow, WorkflowNode, WorkflowStatus } from '../domain/workflow.types.js';
import type { EngineStore } from '../engine/ports.js';
import type { ExecutionStore, ScheduleClaimStore, WorkflowStore } from '../use-cases/deps.js';

/** The workflow store in memory, tenant-scoped like the mongoose repository. */
export class InMemoryWorkflows implements WorkflowStore {
  readonly byId = new Map<string, Workflow>();

  async count(tenantId: string): Promise<number> {
    return [...this.byId.values()].filter((w) => w.tenantId === tenantId).length;
  }
  async insert(workflow: Workflow): Promise<void> {
    this.byId.set(workflow.id, structuredClone(workflow));
  }
  async get(tenantId: string, id: string): Promise<Workflow | undefined> {
    const found = this.byId.get(id);
    return found?.tenantId === tenantId ? structuredClone(found) : undefined;
  }
  async getForHook(hookId: string): Promise<Workflow | undefined> {
    const found = [...this.byId.values()].find((w) => w.hookId === hookId);
    return found && structuredClone(found);
  }
  async rotateHook(tenantId: string, id: string, hookId: string, now: Date): Promise<Workflow | undefined> {
    const found = this.byId.get(id);
    if (found?.tenantId !== tenantId) return undefined;
    const updated = { ...found, hookId, updatedAt: now };
    this.byId.set(id, updated);
    return structuredClone(updated);
  }
  async list(tenantId: string, options: { skip: number; limit: number; status?: string }) {
    const all = [...this.byId.values()]
      .filter((w) => w.tenantId === tenantId && (!options.status || w.status === options.status))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id));
    return {
      items: all.slice(options.skip, options.skip + options.limit).map((w) => structuredClone(w)),
      total: all.length,
    };
  }
  update: WorkflowStore['update'] = async (tenantId, id, changes, conditions = {}) => {
    const found = this.byId.get(id);
    if (found?.tenantId !== tenantId) return undefined;
    if (conditions.status && found.status !== conditions.status) return undefined;
    if (conditions.version !== undefined && (found.version ?? 1) !== conditions.version) return undefined;
    const updated = { ...found, ...changes };
    this.byId.set(id, updated);
    return structuredClone(updated);
  };
  setStatus: WorkflowStore['setStatus'] = (tenantId, id, from, change, now) =>
    this.update(tenantId, id, { ...change, updatedAt: now }, from);
  async delete(tenantId: string, id: string): Promise<boolean> {
    if (this.byId.get(id)?.tenantId !== tenantId) return false;
    return this.byId.delete(id);
  }
  async due(now: Date, limit: number): Promise<Workflow[]> {
    return [...this.byId.values()]
      .filter((w) => w.nextRunAt && w.nextRunAt <= now)
      .sort((a, b) => a.nextRunAt!.getTime() - b.nextRunAt!.getTime())
      .slice(0, limit)
      .map((w) => structuredClone(w));
  }
  async advance(moves: Array<{ id: string; from: Date; to: Date | null }>): Promise<void> {
    for (const m of moves) {
      const found = this.byId.get(m.id);
      if (found?.nextRunAt?.getTime() === m.from.getTime()) found.nextRunAt = m.to;
    }
  }
  async statuses(ids: string[]): Promise<Map<string, WorkflowStatus>> {
    return new Map(ids.flatMap((id) => (this.byId.has(id) ? [[id, this.byId.get(id)!.status] as const] : [])));
  }
  async sealedWith(keyId: string): Promise<Workflow | undefined> {
    const found = [...this.byId.values()].find((w) => sealedKeyId(w.nodes) === keyId);
    return found && structuredClone(found);
  }
  async *withStaleSecrets(currentKeyId: string): AsyncGenerator<Workflow> {
    for (const w of [...this.byId.values()]) if (stale(w.nodes, currentKeyId)) yield structuredClone(w);
  }
  async replaceSealedNodes(workflow: Workflow, nodes: WorkflowNode[]): Promise<boolean> {
    const found = this.byId.get(workflow.id);
    if (found?.updatedAt.getTime() !== workflow.updatedAt.getTime()) return false;
    found.nodes = structuredClone(nodes);
    return true;
  }
}

/** Whether some header value of the nodes is not sealed under the current key. */
function stale(nodes: readonly WorkflowNode[], currentKeyId: string): boolean {
  const keyId = sealedKeyId(nodes);
  return keyId !== undefined && keyId !== currentKeyId;
}

/** Who runs a stored execution, as the repository keeps it beside the execution. */
interface StoredLease extends Lease {
  claims: number;
}

/**
 * The execution store in memory: the reads and writes of the use cases, and the engine's ports
 * (engine/ports.ts) with the repository's lease rules: a write applies only while its owner holds
 * the lease of a running execution; an ended or cancelled execution has no owner.
 */
export class InMemoryExecutions implements ExecutionStore, EngineStore {
  readonly byId = new Map<string, Execution>();
  readonly leases = new Map<string, StoredLease>();
  /** Every write the engine made, in order. */
  readonly writes: Array<{ id: string; kind: 'insert' | 'save'; changes?: ExecutionChanges }> = [];

  async insert(execution: Execution, lease: Lease = NO_LEASE): Promise<void> {
    this.byId.set(execution.id, structuredClone(execution));
    this.leases.set(execution.id, { ...lease, claims: 0 });
    this.writes.push({ id: execution.id, kind: 'insert' });
  }
  async get(tenantId: string, workflowId: string, id: string): Promise<Execution | undefined> {
    const found = this.byId.get(id);
    return found?.tenantId === tenantId && found.workflowId === workflowId ? structuredClone(found) : undefined;
  }
  async getById(tenantId: string, id: string): Promise<Execution | undefined> {
    const found = this.byId.get(id);
    return found?.tenantId === tenantId ? structuredClone(found) : undefined;
  }
  async existing(ids: string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.byId.has(id)));
  }
  async runningChildren(tenantId: string, parentExecutionId: string): Promise<Execution[]> {
    return [...this.byId.values()]
      .filter((e) => e.tenantId === tenantId && e.parentExecutionId === parentExecutionId && e.status === 'running')
      .map((e) => structuredClone(e));
  }
  async *withStaleSecrets(currentKeyId: string): AsyncGenerator<SealedSnapshot> {
    for (const e of [...this.byId.values()])
      if (stale(e.graph.nodes, currentKeyId))
        yield { execution: structuredClone(e), keyId: sealedKeyId(e.graph.nodes) };
  }
  async replaceSealedNodes(snapshot: SealedSnapshot, nodes: WorkflowNode[]): Promise<boolean> {
    const found = this.byId.get(snapshot.execution.id);
    if (!found || sealedKeyId(found.graph.nodes) !== snapshot.keyId) return false;
    found.graph.nodes = structuredClone(nodes);
    return true;
  }
  async countRunning(tenantId: string, atMost: number): Promise<number> {
    const running = [...this.byId.values()].filter((e) => e.tenantId === tenantId && e.status === 'running');
    return Math.min(atMost, running.length);
  }
  async list(tenantId: string, workflowId: string, options: { limit: number; status?: ExecutionStatus }) {
    const all = this.of(tenantId, workflowId)
      .filter((e) => !options.status || e.status === options.status)
      .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
    return { items: all.slice(0, options.limit).map((e) => structuredClone(e)), total: all.length };
  }
  async cancel(tenantId: string, workflowId: string, id: string, now: Date): Promise<Execution | undefined> {
    const found = this.byId.get(id);
    if (found?.tenantId !== tenantId || found.workflowId !== workflowId) return undefined;
    if (found.status !== 'running' && found.status !== 'queued') return undefined;
    const { inFlight: _inFlight, ...rest } = found;
    const cancelled: Execution = {
      ...rest,
      status: 'cancelled',
      error: 'execution cancelled',
      completedAt: now,
      durationMs: Math.max(0, now.getTime() - found.startedAt.getTime()),
    };
    this.byId.set(id, cancelled);
    this.release(id);
    return structuredClone(cancelled);
  }
  async save(
    execution: Pick<Execution, 'id'>,
    owner: string,
    changes: ExecutionChanges,
    options: { clearInFlight?: boolean; releaseLease?: boolean } = {},
  ): Promise<boolean> {
    const found = this.byId.get(execution.id);
    if (!found || this.leases.get(execution.id)?.owner !== owner) return false;
    Object.assign(found, structuredClone(changes));
    if (options.clearInFlight) delete found.inFlight;
    if (options.releaseLease) this.release(execution.id);
    this.writes.push({ id: execution.id, kind: 'save', changes: structuredClone(changes) });
    return true;
  }
  async renewLeases(owner: string, ids: string[], until: Date): Promise<Set<string>> {
    const owned = ids.filter((id) => this.leases.get(id)?.owner === owner && this.byId.get(id)?.status === 'running');
    for (const id of owned) this.leases.get(id)!.until = until;
    return new Set(owned);
  }
  async claimExpired(owner: string, now: Date, until: Date) {
    const expired = [...this.leases.entries()]
      .filter(([id, lease]) => this.byId.get(id)?.status === 'running' && lease.until < now)
      .sort(([, a], [, b]) => a.until.getTime() - b.until.getTime())[0];
    if (!expired) return undefined;
    const [id, lease] = expired;
    Object.assign(lease, { owner, until, claims: lease.claims + 1 });
    return { execution: structuredClone(this.byId.get(id)!), claims: lease.claims };
  }
  async startQueued(id: string, owner: string, now: Date, until: Date): Promise<Execution | undefined> {
    const found = this.byId.get(id);
    if (found?.status !== 'queued') return undefined;
    const span = found.deadlineAt.getTime() - found.startedAt.getTime();
    Object.assign(found, { status: 'running', startedAt: now, deadlineAt: new Date(now.getTime() + span) });
    this.leases.set(id, { owner, until, claims: 0 });
    return structuredClone(found);
  }
  async releaseLeases(owner: string, ids: string[]): Promise<void> {
    for (const id of ids) {
      if (this.leases.get(id)?.owner === owner && this.byId.get(id)?.status === 'running') this.release(id);
    }
  }
  async statusCounts(tenantId: string, workflowId: string): Promise<StatusCounts> {
    const counts: StatusCounts = {
      queued: 0,
      running: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      finishedDurationMs: 0,
    };
    for (const e of this.of(tenantId, workflowId)) {
      counts[e.status] += 1;
      if (e.status === 'completed' || e.status === 'failed') counts.finishedDurationMs += e.durationMs ?? 0;
    }
    return counts;
  }
  async lastRunAt(tenantId: string, workflowIds: string[]): Promise<Map<string, Date>> {
    const last = new Map<string, Date>();
    for (const e of this.byId.values()) {
      if (e.tenantId !== tenantId || !workflowIds.includes(e.workflowId)) continue;
      const seen = last.get(e.workflowId);
      if (!seen || seen < e.startedAt) last.set(e.workflowId, e.startedAt);
    }
    return last;
  }
  async openWorkflow(): Promise<void> {
    // No windows or counters here: lists read the map.
  }
  async deleteForWorkflow(tenantId: string, workflowId: string): Promise<void> {
    for (const e of this.of(tenantId, workflowId)) this.byId.delete(e.id);
  }
  async pruneFinishedBefore(cutoff: Date, { keepPerWorkflow }: { keepPerWorkflow: number }): Promise<number> {
    let pruned = 0;
    for (const e of [...this.byId.values()]) {
      if (e.status === 'running' || !e.completedAt || e.completedAt >= cutoff) continue;
      const newer = this.of(e.tenantId, e.workflowId).filter((o) => o.startedAt > e.startedAt).length;
      if (newer >= keepPerWorkflow) pruned += Number(this.byId.delete(e.id));
    }
    return pruned;
  }
  async pendingCredits(limit: number): Promise<Array<Pick<Execution, 'id' | 'tenantId'>>> {
    return [...this.byId.values()]
      .filter((e) => e.creditPending)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((e) => ({ id: e.id, tenantId: e.tenantId }));
  }
  async markCredited(id: string): Promise<void> {
    const found = this.byId.get(id);
    if (found) delete found.creditPending;
  }
  /** The replica that runs an execution (null: none). */
  ownerOf(id: string): string | null | undefined {
    return this.leases.get(id)?.owner;
  }
  /** Lets an execution's lease run out, as when the replica that ran it died. */
  expire(id: string): void {
    const lease = this.leases.get(id);
    if (lease) lease.until = new Date(0);
  }
  private release(id: string): void {
    const lease = this.leases.get(id);
    if (lease) Object.assign(lease, NO_LEASE);
  }
  private of(tenantId: string, workflowId: string): Execution[] {
    return [...this.byId.values()].filter((e) => e.tenantId === tenantId && e.workflowId === workflowId);
  }
}

/** Schedule claims in memory, one per workflow and tick, as the unique `_id` keeps them. */
export class InMemoryScheduleClaims implements ScheduleClaimStore {
  readonly byId = new Map<string, ScheduleClaim>();

  async claim(claims: ScheduleClaim[]): Promise<boolean[]> {
    return claims.map((c) => {
      if (this.byId.has(c.id)) return false;
      this.byId.set(c.id, structuredClone(c));
      return true;
    });
  }
  async settle(ids: string[], state: Exclude<ClaimState, 'starting'>, error?: string): Promise<void> {
    for (const id of ids) {
      const found = this.byId.get(id);
      if (found) Object.assign(found, { state }, error ? { error } : {});
    }
  }
  async startingFor(workflowId: string): Promise<boolean> {
    return [...this.byId.values()].some((c) => c.workflowId === workflowId && c.state === 'starting');
  }
  async takeOverStale(owner: string, staleBefore: Date, now: Date): Promise<ScheduleClaim | undefined> {
    const stale = [...this.byId.values()].find((c) => c.state === 'starting' && c.claimedAt < staleBefore);
    if (!stale) return undefined;
    Object.assign(stale, { owner, claimedAt: now });
    return structuredClone(stale);
  }
}
