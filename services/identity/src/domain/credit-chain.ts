export type LedgerEntryType = 'grant' | 'charge' | 'refund' | 'purchase' | 'reserve' | 'settle' | 'release';

export interface LedgerEntry {
  id: string;
  tenantId: string;
  /** The entry's place in the tenant's chain; undefined on entries from before the chain. */
  seq?: number;
  type: LedgerEntryType;
  amount: number;
  balanceAfter: number;
  idempotencyKey: string;
  description: string;
  createdAt: Date;
  /** An open reservation's expiry. */
  holdExpiresAt?: Date;
}

/** The end of a tenant's chain: the next entry is `seq + 1` and starts from `balance`. */
export interface ChainHead {
  seq: number;
  balance: number;
}

/** The id of a tenant's `seq`th ledger entry; unique, so one writer wins each link. */
export function chainEntryId(tenantId: string, seq: number): string {
  return `led_${tenantId}_${seq}`;
}

/** One change of a tenant's balance, asked for by a use case. */
export interface Movement {
  /** The operation's idempotency key: at most one entry per tenant carries it. */
  key: string;
  type: LedgerEntryType;
  /** Signed: negative takes credits away. */
  amount: number;
  description: string;
  /**
   * What a negative amount does when the balance cannot cover it: `refuse` it
   * (insufficient_credits) or `cap` it at what the balance covers (a settle that overran its
   * reservation). Either way the balance never goes below zero.
   */
  whenShort: 'refuse' | 'cap';
  /**
   * A reservation's lifetime: it expires this long after its entry's time, read from the same
   * clock, so a write that waited behind others does not shorten it (a settle measures whether a
   * reservation had expired from the entries' times).
   */
  holdMs?: number;
}

/** What became of one movement in a plan. */
export type Outcome = { entry: LedgerEntry; fresh: boolean } | { refused: true };

/**
 * Links the movements into the chain after `head`, in order: each entry's balance is the previous
 * one's plus its amount. A movement whose key appears earlier in the batch shares that entry.
 */
export function planLinks(
  tenantId: string,
  head: ChainHead,
  movements: Movement[],
  now: Date,
): { entries: LedgerEntry[]; outcomes: Outcome[]; head: ChainHead } {
  let { seq, balance } = head;
  const entries: LedgerEntry[] = [];
  const byKey = new Map<string, LedgerEntry>();
  const outcomes = movements.map((movement): Outcome => {
    const same = byKey.get(movement.key);
    if (same) return { entry: same, fresh: false };
    let amount = movement.amount;
    if (amount < 0 && balance + amount < 0) {
      if (movement.whenShort === 'refuse') return { refused: true };
      amount = balance > 0 ? -balance : 0;
    }
    seq += 1;
    balance += amount;
    const entry: LedgerEntry = {
      id: chainEntryId(tenantId, seq),
      tenantId,
      seq,
      type: movement.type,
      amount,
      balanceAfter: balance,
      idempotencyKey: movement.key,
      description: movement.description,
      createdAt: now,
      ...(movement.holdMs !== undefined ? { holdExpiresAt: new Date(now.getTime() + movement.holdMs) } : {}),
    };
    entries.push(entry);
    byKey.set(movement.key, entry);
    return { entry, fresh: true };
  });
  return { entries, outcomes, head: { seq, balance } };
}
