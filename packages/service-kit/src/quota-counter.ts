import type { Connection } from 'mongoose';
import { DomainError } from './errors.js';
import { isDuplicateKeyError } from './mongo.js';
import { isPlanName, planQuota, type QuotaKind } from './plans.js';

/** 403 `quota_exceeded` naming the quota and its limit (docs/design.md section 5). */
export class QuotaExceededError extends DomainError {
  constructor(kind: QuotaKind, limit: number, plan: string) {
    super('quota_exceeded', `Quota exceeded: at most ${limit} ${kind} on plan ${plan}`, [
      { field: kind, message: `limit ${limit} on plan ${plan}` },
    ]);
  }
}

/** What a counter counts: a plan's quota, or a count no plan limits (a workflow's runs: its list's total). */
export type CountKind = QuotaKind | 'executions';

interface CounterDocument {
  _id: string;
  count: number;
  /** When count last changed: a counter untouched for a while has no creates in flight. */
  at: Date;
}

/**
 * Counts what a tenant (or an agent) owns, so that concurrent creates on any number of replicas
 * never pass a quota: one conditional increment on one document (`count < limit`), which MongoDB
 * applies atomically, before the resource is written, and a decrement when a create fails or a
 * resource is deleted.
 *
 * A replica killed between the increment and the write (or between a delete and its decrement)
 * leaves the counter too high. When a create is refused, the counter is therefore compared with
 * the real number of resources, and corrected if it has been still for `settleMs` (no create in
 * flight can then be missing from the real count), so a crash costs at most one refusal.
 *
 * Counts no plan limits (`executions`) use `count`, `add`, `release` and `forget` only: a crash
 * between a write and its count leaves such a count off by the writes it cut short.
 */
export class QuotaCounter {
  private readonly collection;

  constructor(
    connection: Connection,
    private readonly settleMs = 30_000,
  ) {
    this.collection = connection.collection<CounterDocument>('quota_counters');
  }

  /**
   * Takes `units` (default one) of `kind` under `scope` (a tenant id, or an agent id for
   * memories), all or none, or throws QuotaExceededError. `countActual` counts the existing
   * resources; it runs only when the counter is first made, or to check a refusal. Returns a
   * release function for a failed create (it gives all the units back).
   */
  async acquire(
    scope: string,
    kind: QuotaKind,
    plan: string | undefined,
    countActual: () => Promise<number>,
    units = 1,
  ): Promise<() => Promise<void>> {
    const limit = planQuota(plan, kind);
    const id = `${kind}:${scope}`;
    const release = () => this.release(scope, kind, units);
    // Unlimited plans still count, so that a later move to a smaller plan starts from the truth.
    const filter = limit === null ? { _id: id } : { _id: id, count: { $lte: limit - units } };
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = await this.collection.updateOne(filter, { $inc: { count: units }, $set: { at: new Date() } });
      if (taken.modifiedCount === 1) return release;
      const current = await this.collection.findOne({ _id: id });
      if (!current) {
        await this.create(id, await countActual());
        continue;
      }
      if (limit === null || current.count + units <= limit) continue; // a delete made room meanwhile
      if (!(await this.repair(current, countActual))) break;
    }
    if (limit === null) throw new Error(`quota counter ${id} could not be updated`);
    throw new QuotaExceededError(kind, limit, plan && isPlanName(plan) ? plan : 'free');
  }

  /**
   * How many `kind` the scope has, as counted: the resources, plus creates in flight, plus any a
   * crash left counted (until a refusal repairs it). Makes the counter from `countActual` the
   * first time. A list's total reads it: the counter is one read by `_id`, where counting the
   * resources scans the collection on the local stand-in.
   */
  async count(scope: string, kind: CountKind, countActual: () => Promise<number>): Promise<number> {
    const id = `${kind}:${scope}`;
    const current = await this.collection.findOne({ _id: id });
    if (current) return current.count;
    await this.create(id, await countActual());
    return (await this.collection.findOne({ _id: id }))?.count ?? 0;
  }

  /**
   * Counts units that are never refused (chats' episodic memories: a chat must not fail). A
   * counter not made yet stays unmade: the first acquire counts what exists.
   */
  async add(scope: string, kind: CountKind, units = 1): Promise<void> {
    if (units <= 0) return;
    await this.collection.updateOne({ _id: `${kind}:${scope}` }, { $inc: { count: units }, $set: { at: new Date() } });
  }

  /** Forgets a scope whose resources are gone (a deleted agent's memories). */
  async forget(scope: string, kind: CountKind): Promise<void> {
    await this.collection.deleteOne({ _id: `${kind}:${scope}` });
  }

  async release(scope: string, kind: CountKind, units = 1): Promise<void> {
    if (units <= 0) return;
    await this.collection.updateOne(
      { _id: `${kind}:${scope}`, count: { $gte: units } },
      { $inc: { count: -units }, $set: { at: new Date() } },
    );
  }

  private async create(id: string, count: number): Promise<void> {
    try {
      await this.collection.insertOne({ _id: id, count, at: new Date() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // another replica made it first
    }
  }

  /** Lowers a counter left too high by a crash; true when it did. */
  private async repair(current: CounterDocument, countActual: () => Promise<number>): Promise<boolean> {
    if (Date.now() - current.at.getTime() < this.settleMs) return false;
    const actual = await countActual();
    if (actual >= current.count) return false;
    // Only if nothing changed the counter meanwhile (compare-and-set on count and time).
    const fixed = await this.collection.updateOne(
      { _id: current._id, count: current.count, at: current.at },
      { $set: { count: actual, at: new Date() } },
    );
    return fixed.modifiedCount === 1;
  }
}
