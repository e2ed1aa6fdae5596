/**
 * A tenant-scoped collection in memory, the base of the services' in-memory repositories: every
 * read and write names the tenant, and another tenant's record is as absent as a missing one.
 * Records are copied in and out, as a database would, so a caller never edits the store.
 */
export class InMemoryTenantRecords<T extends { id: string }> {
  readonly byId = new Map<string, T>();

  constructor(private readonly tenantOf: (record: T) => string) {}

  async count(tenantId: string): Promise<number> {
    return this.of(tenantId).length;
  }

  async find(tenantId: string, id: string): Promise<T | undefined> {
    return this.copyOf(tenantId, id);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const record = this.byId.get(id);
    return record !== undefined && this.tenantOf(record) === tenantId && this.byId.delete(id);
  }

  /** Stores a copy of the record. */
  protected put(record: T): void {
    this.byId.set(record.id, structuredClone(record));
  }

  /** Applies `edit` to the tenant's record and answers the stored result (undefined when absent). */
  protected async change(tenantId: string, id: string, edit: (record: T) => T): Promise<T | undefined> {
    // Not through find: a test that counts a store's reads counts its callers' only.
    const record = this.copyOf(tenantId, id);
    if (!record) return undefined;
    const changed = edit(record);
    this.put(changed);
    return structuredClone(changed);
  }

  /** A copy of the tenant's record, or undefined. */
  private copyOf(tenantId: string, id: string): T | undefined {
    const record = this.byId.get(id);
    return record && this.tenantOf(record) === tenantId ? structuredClone(record) : undefined;
  }

  /** Copies of the tenant's records. */
  protected of(tenantId: string): T[] {
    return [...this.byId.values()].filter((r) => this.tenantOf(r) === tenantId).map((r) => structuredClone(r));
  }
}

/** The fields of `changes` that are set, for a PATCH-style update. */
export function definedFields<C extends object>(changes: C): Partial<C> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<C>;
}
