import type { Outbox } from '@agentplatform/events';
import { documentsOf, findPage, GroupCommit, isDuplicateKeyError, NewestIds } from '@agentplatform/service-kit';
import type { Connection, Model, mongo } from 'mongoose';
import type { ChatStore, TurnWrite } from '../domain/chat-store.js';
import type { ChatMessage, PendingCharge, Session } from '../domain/chat.js';
import { ChatTurnWriter } from './chat-turn-writer.js';
import { toLegacyChargeDueDocument, toMessage, toMessageDocument, toPendingCharge, toSession } from './chat.mappers.js';
import {
  chargeDueModel,
  messageModel,
  sessionModel,
  type ChargeDueDocument,
  type MessageDocument,
  type SessionDocument,
} from './chat.schema.js';

/** The stored id of a client-chosen session id: per agent, so another agent's same id is another session. */
export function clientSessionId(agentId: string, key: string): string {
  return `${agentId}/${key}`;
}

/** Sessions, messages and the chats' unsettled charges in MongoDB. Reads are lean mongoose queries. */
export class ChatRepository implements ChatStore {
  private readonly sessions: Model<SessionDocument>;
  private readonly messages: Model<MessageDocument>;
  private readonly charges: Model<ChargeDueDocument>;
  private readonly sessionCollection: mongo.Collection<SessionDocument>;
  private readonly messageCollection: mongo.Collection<MessageDocument>;
  private readonly chargeCollection: mongo.Collection<ChargeDueDocument>;
  private readonly writer: ChatTurnWriter;
  /** Each session's newest user and assistant message ids: what a turn's history reads (newest-ids.ts). */
  readonly newest: NewestIds;
  /** Charges settled while an earlier mark was in flight are marked together, per tenant. */
  private readonly charged = new GroupCommit<string, void>(async (tenantId, ids) => {
    await this.charges.deleteMany({ _id: { $in: ids }, tenant_id: tenantId });
    return ids.map(() => undefined);
  });

  constructor(connection: Connection, outbox: Outbox) {
    this.sessions = sessionModel(connection);
    this.messages = messageModel(connection);
    this.charges = chargeDueModel(connection);
    this.sessionCollection = documentsOf<SessionDocument>(this.sessions);
    this.messageCollection = documentsOf<MessageDocument>(this.messages);
    this.chargeCollection = documentsOf<ChargeDueDocument>(this.charges);
    this.newest = new NewestIds(connection, 'message_windows');
    this.writer = new ChatTurnWriter(
      { sessions: this.sessionCollection, messages: this.messageCollection, charges: this.chargeCollection },
      outbox,
      this.newest,
    );
  }

  async init(): Promise<void> {
    await Promise.all([this.sessions.init(), this.messages.init(), this.charges.init()]);
    await this.moveLegacyPendingCharges();
  }

  /**
   * Replies stored with `charge_pending` by releases before the due entries get theirs (once, at
   * startup: the only read of messages by that flag), so the retry job reads due entries only.
   */
  private async moveLegacyPendingCharges(): Promise<void> {
    const legacy = await this.messages.find({ charge_pending: true }).lean<MessageDocument[]>();
    if (legacy.length === 0) return;
    await this.chargeCollection.bulkWrite(
      legacy.map((doc) => ({
        updateOne: { filter: { _id: doc._id }, update: { $setOnInsert: toLegacyChargeDueDocument(doc) }, upsert: true },
      })),
      { ordered: false },
    );
    await this.messageCollection.updateMany(
      { _id: { $in: legacy.map((doc) => doc._id) } },
      { $unset: { charge_pending: '', reservations: '' } },
    );
  }

  async findSession(tenantId: string, agentId: string, key: string): Promise<Session | undefined> {
    const doc = await this.sessions
      .findOne({ _id: { $in: [key, clientSessionId(agentId, key)] }, tenant_id: tenantId, agent_id: agentId })
      .lean<SessionDocument>();
    return doc ? toSession(doc) : undefined;
  }

  /**
   * An upsert on the stored id (which embeds the agent id): concurrent first uses create one
   * session, the loser of the race reads the winner's.
   */
  async openClientSession(
    tenantId: string,
    agentId: string,
    key: string,
    init: { title: string; at: Date },
  ): Promise<Session> {
    const id = clientSessionId(agentId, key);
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.sessions
          .findOneAndUpdate(
            { _id: id, tenant_id: tenantId, agent_id: agentId },
            {
              $setOnInsert: {
                key,
                title: init.title,
                message_count: 0,
                created_at: init.at,
                last_message_at: init.at,
              },
            },
            { upsert: true, returnDocument: 'after' },
          )
          .lean<SessionDocument>();
        // No message counted yet: the window is complete from here (every message's id enters it
        // before the message is stored), so the session's turns never fill it by a scan.
        if (doc!.message_count === 0) await this.newest.open(id);
        return toSession(doc!);
      } catch (error) {
        if (!isDuplicateKeyError(error) || attempt >= 2) throw error;
      }
    }
  }

  storeTurn(write: TurnWrite): Promise<void> {
    return this.writer.store(write);
  }

  async appendToolMessage(message: ChatMessage): Promise<void> {
    await this.messageCollection.insertOne(toMessageDocument(message));
    await this.sessionCollection.updateOne(
      { _id: message.sessionId, tenant_id: message.tenantId },
      { $inc: { message_count: 1 }, $max: { last_message_at: message.createdAt } },
    );
  }

  async recentMessages(tenantId: string, sessionId: string, limit: number): Promise<ChatMessage[]> {
    if (limit <= 0) return [];
    const history = { tenant_id: tenantId, session_id: sessionId, role: { $ne: 'tool' as const } };
    // By `_id` from the session's window: the sorted query scans every message on the stand-in,
    // and it ran on every turn.
    const docs = await this.newest.page(sessionId, limit, {
      byIds: async (ids) =>
        (await this.messageCollection.find({ _id: { $in: ids } }).toArray()).filter(
          (d) => d.tenant_id === tenantId && d.session_id === sessionId && d.role !== 'tool',
        ),
      largestIds: async (keep) =>
        (
          await this.messageCollection
            .find(history, { projection: { _id: 1 }, sort: { _id: -1 }, limit: keep })
            .toArray()
        ).map((d) => d._id),
      scan: () => this.messages.find(history).sort({ _id: -1 }).limit(limit).lean<MessageDocument[]>(),
    });
    return docs.reverse().map(toMessage);
  }

  async listSessions(
    tenantId: string,
    agentId: string,
    skip: number,
    limit: number,
  ): Promise<{ sessions: Session[]; total: number }> {
    const { docs, total } = await findPage(
      this.sessions,
      { tenant_id: tenantId, agent_id: agentId },
      { sort: { last_message_at: -1, _id: -1 }, skip, limit },
    );
    return { sessions: docs.map(toSession), total };
  }

  async listMessages(
    tenantId: string,
    sessionId: string,
    skip: number,
    limit: number,
  ): Promise<{ messages: ChatMessage[]; total: number }> {
    const { docs, total } = await findPage(
      this.messages,
      { tenant_id: tenantId, session_id: sessionId },
      { sort: { _id: 1 }, skip, limit },
    );
    return { messages: docs.map(toMessage), total };
  }

  /**
   * A page of the due entries: the collection holds only unsettled charges (empty when all are
   * settled), so this read never touches the messages. Through mongoose, so the retry job's polls
   * count in `mongo_commands_total`.
   */
  async pendingCharges(limit: number): Promise<PendingCharge[]> {
    const docs = await this.charges.find({}).sort({ _id: 1 }).limit(limit).lean<ChargeDueDocument[]>();
    return docs.map(toPendingCharge);
  }

  async markCharged(tenantId: string, id: string): Promise<void> {
    await this.charged.submit(tenantId, id);
  }

  async deleteAgent(tenantId: string, agentId: string): Promise<{ sessions: number; messages: number }> {
    const gone = await this.sessionCollection
      .find({ tenant_id: tenantId, agent_id: agentId }, { projection: { _id: 1 } })
      .toArray();
    // No session, no message (a turn stores its session before its messages): deleting by agent
    // scans every message on the stand-in, so an agent that never chatted skips it.
    if (gone.length === 0) return { sessions: 0, messages: 0 };
    await this.newest.remove(gone.map((d) => d._id));
    const [sessions, messages] = await Promise.all([
      this.sessions.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
      this.messages.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
    ]);
    return { sessions: sessions.deletedCount, messages: messages.deletedCount };
  }
}
