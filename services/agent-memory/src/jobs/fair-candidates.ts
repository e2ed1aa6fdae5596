import type { PendingItem } from '../domain/memory.js';
import { estimatedWordPieces, MAX_TOKENS } from '../embeddings/word-pieces.js';

/**
 * Most word pieces an item's model work is counted by: the local model cuts longer texts there
 * (an embeddings endpoint's cost grows further, but the cap keeps one long text from costing its
 * tenant more than a few batches' share).
 */
export const MAX_ITEM_COST = MAX_TOKENS;

/**
 * An item's model work, in estimated word pieces (embeddings/word-pieces.ts), at most
 * MAX_ITEM_COST (~200 short texts/s per core, ~28 texts/s of 128 word pieces).
 */
export const itemCost: (length: number) => number = estimatedWordPieces;

interface TenantQueue {
  items: PendingItem[];
  /** Where the next item to take is in `items`. */
  next: number;
  /** Model work (word pieces) this tenant's items have been given since it started waiting. */
  served: number;
}

/** Candidates of the queue not taken yet. */
function remaining(queue: TenantQueue): number {
  return queue.items.length - queue.next;
}

/**
 * The embedding backlog's candidates, queued per tenant, and the choice of each batch among them:
 * the next item always comes from the tenant whose items have had the least model work so far
 * (counted in word pieces, so a tenant of long texts gets fewer items per batch, not more of the
 * model), and a tenant that starts waiting starts level with the least served one. So a tenant
 * with a long backlog shares the model with every other waiting tenant instead of going first,
 * and a tenant that waits for one item gets it into the next batch. Within a tenant, items go in
 * the order the look-ups found them.
 */
export class FairCandidates {
  private readonly queues = new Map<string, TenantQueue>();

  /** Tenants with candidates in hand (a look-up for more candidates leaves them out). */
  tenants(): string[] {
    return [...this.queues.keys()];
  }

  /** Candidates in hand. */
  get size(): number {
    let size = 0;
    for (const queue of this.queues.values()) size += remaining(queue);
    return size;
  }

  /** Queues a look-up's items behind those of their tenant already in hand. */
  add(found: PendingItem[]): void {
    const level = this.leastServed();
    for (const item of found) {
      let queue = this.queues.get(item.tenantId);
      if (!queue) {
        queue = { items: [], next: 0, served: level };
        this.queues.set(item.tenantId, queue);
      }
      queue.items.push(item);
    }
  }

  /**
   * Takes the next batch: at most `count` items whose costs add up to at most `budget` (its
   * first item whatever its cost), one at a time from the least served tenant. A tenant whose
   * next item does not fit the rest of the budget sits the batch out; the others fill it.
   */
  take(count: number, budget: number): PendingItem[] {
    const batch: PendingItem[] = [];
    const skipped = new Set<TenantQueue>();
    let spent = 0;
    while (batch.length < count) {
      const queue = this.leastServedQueue(skipped);
      if (!queue) break;
      const item = queue.items[queue.next];
      const cost = itemCost(item.length);
      if (batch.length > 0 && spent + cost > budget) {
        skipped.add(queue);
        continue;
      }
      batch.push(item);
      spent += cost;
      queue.served += cost;
      queue.next += 1;
      if (queue.next === queue.items.length) this.queues.delete(item.tenantId);
    }
    return batch;
  }

  /**
   * Lets go of candidates beyond `max`, from the ends of the longest queues, keeping at least one
   * per tenant: what is let go stays waiting in the database, and a look-up finds it again once
   * its tenant's queue runs out. So many tenants with long backlogs cost a bounded memory, and
   * each still keeps its place in the rotation.
   */
  trim(max: number): void {
    let excess = this.size - max;
    while (excess > 0) {
      let longest: TenantQueue | undefined;
      for (const queue of this.queues.values()) {
        if (!longest || remaining(queue) > remaining(longest)) longest = queue;
      }
      if (!longest || remaining(longest) <= 1) return;
      const drop = Math.min(excess, Math.ceil((remaining(longest) - 1) / 2));
      longest.items.length -= drop;
      excess -= drop;
    }
  }

  private leastServedQueue(skipped: Set<TenantQueue>): TenantQueue | undefined {
    let least: TenantQueue | undefined;
    for (const queue of this.queues.values()) {
      if (!skipped.has(queue) && (!least || queue.served < least.served)) least = queue;
    }
    return least;
  }

  private leastServed(): number {
    return this.leastServedQueue(new Set())?.served ?? 0;
  }
}
