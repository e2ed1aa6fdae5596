import { GroupCommit, InsufficientCreditsError, NotFoundError } from '@agentplatform/service-kit';
import { planLinks, type ChainHead, type LedgerEntry, type Movement } from '../domain/credit-chain.js';
import type { CreditRepository } from '../persistence/credit.repository.js';

/** Rounds of re-reading the chain after losing links to other writers before giving up. */
const MAX_ROUNDS = 50;
/** Chain ends remembered; past this the memory starts over (each is re-read on first use). */
const MAX_HEADS = 10_000;
/** Open reservations remembered; past this the memory starts over (each is re-read on first use). */
const MAX_HOLDS = 10_000;

function holdKey(tenantId: string, key: string): string {
  return `${tenantId}\u0000${key}`;
}

/**
 * Writes movements to the tenants' ledger chains (docs/credits.md). Each
 * movement is one inserted entry, so it and the balance it produces are one atomic write keyed by
 * the operation's id. A tenant's movements are written one batch at a time by this process (one
 * ordered insert for all that arrived meanwhile, each still its own entry); other replicas are
 * kept out of a link by its unique id, and the loser re-reads the chain and tries again.
 */
export class CreditWriter {
  /** Chain ends this process wrote last; forgotten on any conflict, so never trusted blindly. */
  private readonly heads = new Map<string, ChainHead>();
  /**
   * Reservations this process wrote or read, until this process closes them. A reservation's
   * entry never changes (only its expiry mark is removed on close), so a settle on this replica
   * needs no read of it; on another replica, or after a restart, it is read from the ledger.
   */
  private readonly holds = new Map<string, LedgerEntry>();
  private readonly batches = new GroupCommit<Movement, LedgerEntry>((tenantId, movements) =>
    this.flush(tenantId, movements),
  );
  private readonly closings = new GroupCommit<string, true>(async (tenantId, entryIds) => {
    await this.repository.closeHolds(tenantId, [...new Set(entryIds)]);
    return entryIds.map(() => true as const);
  });

  constructor(private readonly repository: CreditRepository) {}

  /** The movement's entry: a new one, or the one an earlier movement with its key made. */
  write(tenantId: string, movement: Movement): Promise<LedgerEntry> {
    return this.batches.submit(tenantId, movement);
  }

  /** The reservation entry with this operation id, or undefined when there is none. */
  async findHold(tenantId: string, key: string): Promise<LedgerEntry | undefined> {
    const known = this.holds.get(holdKey(tenantId, key));
    if (known) return known;
    const entry = await this.repository.findByKey(tenantId, key);
    if (entry) this.remember(entry);
    return entry;
  }

  /**
   * Removes a closed reservation's expiry mark (the closing entry is what counts; this spares
   * the expiry sweep a look), one update for the tenant's reservations closed meanwhile.
   */
  async closeHold(hold: LedgerEntry): Promise<void> {
    this.holds.delete(holdKey(hold.tenantId, hold.idempotencyKey));
    await this.closings.submit(hold.tenantId, hold.id);
  }

  private remember(entry: LedgerEntry): void {
    if (entry.type !== 'reserve') return;
    if (this.holds.size >= MAX_HOLDS) this.holds.clear();
    this.holds.set(holdKey(entry.tenantId, entry.idempotencyKey), entry);
  }

  private async flush(tenantId: string, movements: Movement[]): Promise<Array<LedgerEntry | Error>> {
    const results = await this.link(tenantId, movements);
    for (const result of results) if (!(result instanceof Error)) this.remember(result);
    return results;
  }

  private async link(tenantId: string, movements: Movement[]): Promise<Array<LedgerEntry | Error>> {
    const results: Array<LedgerEntry | Error | undefined> = movements.map(() => undefined);
    let open = movements.map((_, i) => i);
    for (let round = 0; open.length > 0; round++) {
      if (round === MAX_ROUNDS) {
        for (const i of open) results[i] = new Error('credit ledger: too many conflicting writers');
        break;
      }
      // With a chain end of its own, the first round inserts straight away: a key already used
      // fails the insert on the unique (tenant, key) index, which is a conflict like a lost link,
      // and the next round reads the keys. Without one (and in every later round) it reads them
      // first. A refusal is only given after the keys were read (below).
      if (round > 0 || !this.heads.has(tenantId)) {
        const made = await this.repository.findByKeys(tenantId, [...new Set(open.map((i) => movements[i]!.key))]);
        const byKey = new Map(made.map((entry) => [entry.idempotencyKey, entry]));
        open = open.filter((i) => {
          const entry = byKey.get(movements[i]!.key);
          if (entry) results[i] = entry;
          return !entry;
        });
        if (open.length === 0) break;
      }

      const cached = this.heads.get(tenantId);
      const head = cached ?? (await this.repository.head(tenantId));
      if (!head) {
        for (const i of open) results[i] = new NotFoundError('Tenant');
        break;
      }
      const plan = planLinks(
        tenantId,
        head,
        open.map((i) => movements[i]!),
        new Date(),
      );
      if (cached && plan.outcomes.some((o) => 'refused' in o)) {
        // Refuse only on what the database says: another replica may have added credits.
        this.heads.delete(tenantId);
        round--;
        continue;
      }
      const { stored, conflict } = await this.repository.append(plan.entries).catch((error: unknown) => {
        this.heads.delete(tenantId);
        throw error;
      });
      const storedIds = new Set(plan.entries.slice(0, stored).map((e) => e.id));
      open = open.filter((i, at) => {
        const outcome = plan.outcomes[at]!;
        if ('refused' in outcome) {
          if (conflict) return true;
          results[i] = new InsufficientCreditsError();
          return false;
        }
        if (!storedIds.has(outcome.entry.id)) return true;
        results[i] = outcome.entry;
        return false;
      });
      if (conflict) this.heads.delete(tenantId);
      else {
        if (this.heads.size >= MAX_HEADS) this.heads.clear();
        this.heads.set(tenantId, plan.head);
      }
    }
    return results.map((r) => r ?? new Error('credit ledger: movement left unwritten'));
  }
}

const writers = new WeakMap<CreditRepository, CreditWriter>();

/** The one writer of this process for a repository (its batches and chain ends are shared). */
export function creditWriter(repository: CreditRepository): CreditWriter {
  let writer = writers.get(repository);
  if (!writer) {
    writer = new CreditWriter(repository);
    writers.set(repository, writer);
  }
  return writer;
}
