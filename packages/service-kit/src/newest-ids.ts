import type { Connection, Model } from 'mongoose';
import { documentsOf } from './mongo.js';

/**
 * The ids of a parent's newest children (a webhook's deliveries, an agent's memories, a
 * workflow's runs), largest first: what a list's first page reads by `_id`. The local MongoDB
 * stand-in answers a filter-and-sort page (`{tenant_id, parent_id}` newest first) by scanning and
 * sorting the whole collection, so a list asked for once a second cost a scan of every delivery
 * or memory, growing with the history (docs/queries.md). Ids are time-sortable (ULIDs), so the
 * largest are the newest. A list sorted by something else keeps sort keys that end in the id
 * (`idOf` reads it back): a run's start time and id, pushed again when a queued run starts.
 */
export interface NewestIdsDocument {
  /** The parent's id. */
  _id: string;
  /** At most `keep` ids, largest first: `$push` with `$sort` keeps the largest whatever the arrival order. */
  ids: string[];
  /**
   * Set once the window holds every child the parent has (created with the parent, or filled from
   * the children by one scan): only then may a window with room left say the list ends.
   */
  complete?: boolean;
}

/** How a list reads its documents, for `NewestIds.page`. */
export interface NewestReads<T> {
  /** The documents of these ids that the list shows (the caller checks tenant, parent and filters). */
  byIds(ids: string[]): Promise<T[]>;
  /** The parent's `keep` largest child ids (or sort keys), by the query that scans: once per parent, to fill its window. */
  largestIds(keep: number): Promise<string[]>;
  /** The page by the sorting query (a scan on the stand-in): when the window cannot answer. */
  scan(): Promise<T[]>;
}

/** Ids kept per parent: twice the largest page (MAX_PAGE_SIZE), so a status filter or a few deletes still fill a page. */
export const NEWEST_IDS_KEPT = 200;

export class NewestIds {
  readonly model: Model<NewestIdsDocument>;

  /**
   * `idOf`: the child's id in a window entry, for windows of sort keys (the entry itself by
   * default). A child whose key changed has its largest entry count; the older ones are skipped.
   */
  constructor(
    connection: Connection,
    collection: string,
    private readonly keep = NEWEST_IDS_KEPT,
    private readonly idOf: (entry: string) => string = (entry) => entry,
  ) {
    const name = `NewestIds:${collection}`;
    this.model =
      (connection.models[name] as Model<NewestIdsDocument> | undefined) ??
      connection.model<NewestIdsDocument>(
        name,
        // The connection's own mongoose: this module loads none (mongo.ts: mongoose loads on connect).
        new connection.base.Schema<NewestIdsDocument>(
          { _id: { type: String, required: true }, ids: { type: [String], default: [] }, complete: Boolean },
          { collection, versionKey: false },
        ),
      );
  }

  private get collection() {
    return documentsOf<NewestIdsDocument>(this.model);
  }

  /** A new parent: its window is complete from the start (no child can be older than it). */
  async open(parentId: string): Promise<void> {
    await this.collection.updateOne({ _id: parentId }, { $set: { complete: true } }, { upsert: true });
  }

  /**
   * Adds children's ids to their parents' windows, one write by `_id` per parent. Called before
   * the children are inserted: a crash in between leaves an id that finds no document (skipped),
   * never a document missing from its window. `newParent`: the parent is created in the same
   * write as this child (a chat session with its first message), so its window is complete, as
   * `open` would make it.
   */
  async add(children: ReadonlyArray<{ parentId: string; id: string; newParent?: boolean }>): Promise<void> {
    if (children.length === 0) return;
    const byParent = new Map<string, { ids: string[]; isNew: boolean }>();
    for (const { parentId, id, newParent } of children) {
      const entry = byParent.get(parentId) ?? { ids: [], isNew: false };
      entry.ids.push(id);
      entry.isNew ||= newParent === true;
      byParent.set(parentId, entry);
    }
    await this.collection.bulkWrite(
      [...byParent].map(([parentId, { ids, isNew }]) => ({
        updateOne: {
          filter: { _id: parentId },
          update: {
            $push: { ids: { $each: ids, $sort: -1, $slice: this.keep } },
            ...(isNew ? { $set: { complete: true } } : {}),
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /** Whether the parent never had a child: its window is complete and holds no id. */
  async isEmpty(parentId: string): Promise<boolean> {
    const window = await this.collection.findOne({ _id: parentId });
    return window?.complete === true && (window.ids ?? []).length === 0;
  }

  /** The parents are gone, and their children with them. */
  async remove(parentIds: string[]): Promise<void> {
    if (parentIds.length > 0) await this.collection.deleteMany({ _id: { $in: parentIds } });
  }

  /**
   * The parent's newest `limit` children that `reads.byIds` shows, newest first (by `_id`). From
   * the window when it has `limit` of them, or when it is complete with room left (it holds every
   * child); otherwise (a filter or deletes leave the window short) by `reads.scan()`.
   */
  async page<T extends { _id: string }>(parentId: string, limit: number, reads: NewestReads<T>): Promise<T[]> {
    let window = await this.collection.findOne({ _id: parentId });
    if (!window?.complete) {
      // Children stored before windows existed: one scan fills the window, then it is kept by `add`.
      const known = new Set(window?.ids ?? []);
      const ids = (await reads.largestIds(this.keep)).filter((id) => !known.has(id));
      await this.collection.updateOne(
        { _id: parentId },
        { $push: { ids: { $each: ids, $sort: -1, $slice: this.keep } }, $set: { complete: true } },
        { upsert: true },
      );
      window = await this.collection.findOne({ _id: parentId });
    }
    // An id pushed twice (its child stored while the window was being filled, a queued run that
    // started) counts once, at its largest entry.
    // A window opened with its parent and never added to has no `ids` yet (`open` upserts it bare).
    const entries = window?.ids ?? [];
    const ids = [...new Set(entries.map(this.idOf))];
    const rank = new Map(ids.map((id, n) => [id, n]));
    // The window is largest first: read a page's worth of ids at a time, the next only when
    // filters or deletes left the page short (a lookup per id costs the stand-in a document read).
    const docs: T[] = [];
    const step = Math.max(limit, 20);
    for (let start = 0; start < ids.length && docs.length < limit; start += step) {
      const chunk = await reads.byIds(ids.slice(start, start + step));
      docs.push(...chunk.sort((a, b) => rank.get(a._id)! - rank.get(b._id)!));
    }
    if (docs.length >= limit || entries.length < this.keep) return docs.slice(0, limit);
    return reads.scan();
  }
}
