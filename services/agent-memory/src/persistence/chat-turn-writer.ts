import type { Outbox, OutboxEvent, OutboxGroup } from '@agentplatform/events';
import { insertEach, perOperationErrors, type NewestIds } from '@agentplatform/service-kit';
import type { ClientSession, mongo } from 'mongoose';
import type { TurnWrite } from '../domain/chat-store.js';
import { toChargeDueDocument, toMessageDocument, toSessionDocument } from './chat.mappers.js';
import type { ChargeDueDocument, MessageDocument, SessionDocument } from './chat.schema.js';

/** The driver's collections a turn writes (typed by their documents). */
export interface TurnCollections {
  sessions: mongo.Collection<SessionDocument>;
  messages: mongo.Collection<MessageDocument>;
  charges: mongo.Collection<ChargeDueDocument>;
}

type Outcome = Array<Error | undefined>;

/*
 * The writes of a chat turn go to the driver's collections directly: the documents are built from
 * typed values, so a mongoose document per insert (casting, validation, hooks) only cost CPU on
 * every turn.
 */
export class ChatTurnWriter {
  private readonly group: OutboxGroup<TurnWrite, void>;

  constructor(
    private readonly collections: TurnCollections,
    outbox: Outbox,
    /** The sessions' windows of newest message ids (ChatRepository.recentMessages reads them). */
    private readonly windows: Pick<NewestIds, 'add'>,
  ) {
    this.group = outbox.group((writes, session) => this.writeTurns(writes, session));
  }

  /**
   * Stores a turn's step with its events in one outbox run, committed with the runs of concurrent
   * turns (of any tenant) that wait meanwhile: one transaction and a round trip per kind of write
   * for the group instead of a transaction and several round trips per turn. A write that fails
   * sends every run of its group through its own transaction again.
   */
  store(write: TurnWrite): Promise<void> {
    return this.group.run(write);
  }

  /**
   * The domain writes of a group of turns: the new sessions, the messages and the pending charges
   * (one insertMany each), the touches of existing sessions (one bulkWrite, a session's touches
   * of the group folded into one update). Answers per turn its events, or the error of its own
   * writes; a turn whose first write failed writes nothing more.
   */
  async writeTurns(
    writes: TurnWrite[],
    dbSession?: ClientSession,
  ): Promise<Array<{ result: void; events: OutboxEvent[] } | Error>> {
    const outcome: Outcome = writes.map(() => undefined);
    const options = { ordered: false, session: dbSession } as const;
    const step = async (picked: (w: TurnWrite) => boolean, run: (live: TurnWrite[]) => Promise<Outcome>) => {
      // In a transaction a failed write has aborted it: the group is retried run by run, and a
      // further command would fail as a transient error that the driver retries the group on.
      if (dbSession && outcome.some((e) => e !== undefined)) return;
      const live = writes.flatMap((w, i) => (outcome[i] === undefined && picked(w) ? [i] : []));
      if (live.length === 0) return;
      (await run(live.map((i) => writes[i]!))).forEach((error, k) => {
        if (error) outcome[live[k]!] = error;
      });
    };
    const { sessions, messages, charges } = this.collections;
    await step(
      (w) => w.newSession !== undefined,
      (live) =>
        insertEach(
          { insertMany: (docs: SessionDocument[]) => sessions.insertMany(docs, options) },
          live.map((w) => toSessionDocument(w.newSession!)),
        ),
    );
    await step(
      (w) => w.message !== undefined,
      async (live) => {
        // Ids before the messages, outside the transaction: an id whose message is not stored finds nothing.
        await this.windows.add(
          live.map((w) => ({
            parentId: w.message!.sessionId,
            id: w.message!.id,
            newParent: w.newSession !== undefined,
          })),
        );
        return insertEach(
          { insertMany: (docs: MessageDocument[]) => messages.insertMany(docs, options) },
          live.map((w) => toMessageDocument(w.message!)),
        );
      },
    );
    await step(
      (w) => w.charge !== undefined,
      (live) =>
        insertEach(
          { insertMany: (docs: ChargeDueDocument[]) => charges.insertMany(docs, options) },
          live.map((w) => toChargeDueDocument(w.charge!)),
        ),
    );
    await step(
      (w) => w.touch !== undefined && w.message !== undefined,
      (live) => this.touchEach(live, dbSession),
    );
    return writes.map((w, i) => outcome[i] ?? { result: undefined, events: w.events });
  }

  /** Touches sessions, one update per session (its touches summed), in one round trip; answers per touch. */
  private async touchEach(writes: TurnWrite[], dbSession?: ClientSession): Promise<Outcome> {
    const bySession = new Map<
      string,
      { filter: { _id: string; tenant_id: string }; added: number; at: Date; of: number[] }
    >();
    writes.forEach((w, i) => {
      const { message, touch } = { message: w.message!, touch: w.touch! };
      const key = `${message.tenantId}\u0000${message.sessionId}`;
      const entry = bySession.get(key);
      if (entry) {
        entry.added += touch.added;
        if (touch.at > entry.at) entry.at = touch.at;
        entry.of.push(i);
      } else {
        bySession.set(key, {
          filter: { _id: message.sessionId, tenant_id: message.tenantId },
          added: touch.added,
          at: touch.at,
          of: [i],
        });
      }
    });
    const entries = [...bySession.values()];
    const ops: mongo.AnyBulkWriteOperation<SessionDocument>[] = entries.map((e) => ({
      updateOne: { filter: e.filter, update: { $inc: { message_count: e.added }, $max: { last_message_at: e.at } } },
    }));
    const results: Outcome = writes.map(() => undefined);
    try {
      await this.collections.sessions.bulkWrite(ops, { ordered: false, session: dbSession });
    } catch (error) {
      // A session's failed update fails every write folded into it.
      perOperationErrors(error, entries.length).forEach((failed, index) => {
        if (failed) for (const i of entries[index]!.of) results[i] = failed;
      });
    }
    return results;
  }
}
