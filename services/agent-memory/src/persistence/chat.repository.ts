import type { Outbox, OutboxEvent, OutboxGroup } from '@agentplatform/events';
import { GroupCommit, findPage, insertEach, perOperationErrors } from '@agentplatform/service-kit';
import type { AnyBulkWriteOperation, ClientSession, Collection, Connection, Model } from 'mongoose';
import type { ChatMessage, Session, ToolStep } from '../domain/chat.js';
import { messageModel, sessionModel, type MessageDoc, type SessionDoc } from './chat.schema.js';

function toSession(doc: SessionDoc): Session {
  return {
    id: doc._id,
    key: doc.key ?? doc._id,
    tenantId: doc.tenant_id,
    agentId: doc.agent_id,
    title: doc.title ?? '',
    messageCount: doc.message_count ?? 0,
    createdAt: doc.created_at,
    lastMessageAt: doc.last_message_at,
  };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toStep(step: NonNullable<MessageDoc['step']>): ToolStep {
  return {
    type: 'tool_call',
    tool: step.tool,
    arguments: (parseJson(step.arguments_json) ?? {}) as Record<string, unknown>,
    ...(step.output_json !== undefined ? { output: parseJson(step.output_json) } : {}),
    ...(step.error !== undefined ? { error: step.error } : {}),
    durationMs: step.duration_ms,
  };
}

/** The stored id of a client-chosen session id: per agent, so another agent's same id is another session. */
export function clientSessionId(agentId: string, key: string): string {
  return `${agentId}/${key}`;
}

function toMessage(doc: MessageDoc): ChatMessage {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    agentId: doc.agent_id,
    sessionId: doc.session_id,
    role: doc.role,
    content: doc.content,
    ...(doc.step ? { step: toStep(doc.step) } : {}),
    model: doc.model,
    usage: doc.usage
      ? {
          promptTokens: doc.usage.prompt_tokens,
          completionTokens: doc.usage.completion_tokens,
          totalTokens: doc.usage.total_tokens,
        }
      : undefined,
    latencyMs: doc.latency_ms,
    credits: doc.credits,
    chargePending: doc.charge_pending,
    ...(doc.reservations
      ? { reservations: doc.reservations.map((r) => ({ operationId: r.operation_id, amount: r.amount })) }
      : {}),
    createdAt: doc.created_at,
  };
}

/** The stored document, without absent fields (they are written as is, not through a mongoose document). */
function toMessageDoc(m: ChatMessage): MessageDoc {
  return {
    _id: m.id,
    tenant_id: m.tenantId,
    agent_id: m.agentId,
    session_id: m.sessionId,
    role: m.role,
    content: m.content,
    ...(m.step
      ? {
          step: {
            tool: m.step.tool,
            arguments_json: JSON.stringify(m.step.arguments),
            ...(m.step.output !== undefined ? { output_json: JSON.stringify(m.step.output) } : {}),
            ...(m.step.error !== undefined ? { error: m.step.error } : {}),
            duration_ms: m.step.durationMs,
          },
        }
      : {}),
    ...(m.model !== undefined ? { model: m.model } : {}),
    ...(m.usage
      ? {
          usage: {
            prompt_tokens: m.usage.promptTokens,
            completion_tokens: m.usage.completionTokens,
            total_tokens: m.usage.totalTokens,
          },
        }
      : {}),
    ...(m.latencyMs !== undefined ? { latency_ms: m.latencyMs } : {}),
    ...(m.credits !== undefined ? { credits: m.credits } : {}),
    ...(m.chargePending ? { charge_pending: true } : {}),
    ...(m.reservations
      ? { reservations: m.reservations.map((r) => ({ operation_id: r.operationId, amount: r.amount })) }
      : {}),
    created_at: m.createdAt,
  };
}

function toSessionDoc(session: Session): SessionDoc {
  return {
    _id: session.id,
    key: session.key,
    tenant_id: session.tenantId,
    agent_id: session.agentId,
    title: session.title,
    message_count: session.messageCount,
    created_at: session.createdAt,
    last_message_at: session.lastMessageAt,
  };
}

/** One stored step of a turn: a message, the new session it opens or the session's touch, and its events. */
export interface TurnWrite {
  /** A session created with this message (its count already includes it). */
  newSession?: Session;
  message: ChatMessage;
  /** Counts the message in its (existing) session. */
  touch?: { added: number; at: Date };
  events: OutboxEvent[];
}

/*
 * The writes of a chat turn go to the driver's collections directly: the documents are built
 * above from typed values, so a mongoose document per insert (casting, validation, hooks) only
 * cost CPU on every turn. Reads stay lean mongoose queries.
 */
export class ChatRepository {
  private readonly sessions: Model<SessionDoc>;
  private readonly messages: Model<MessageDoc>;
  private readonly sessionCollection: Collection<SessionDoc>;
  private readonly messageCollection: Collection<MessageDoc>;
  /** Replies settled while an earlier mark was in flight are marked together, per tenant. */
  private readonly charged = new GroupCommit<string, void>(async (tenantId, ids) => {
    await this.messageCollection.updateMany(
      { _id: { $in: ids }, tenant_id: tenantId },
      { $unset: { charge_pending: '' } },
    );
    return ids.map(() => undefined);
  });

  /** The turns' outbox runs, committed together (one per outbox; built on first use). */
  private turns?: { outbox: Outbox; group: OutboxGroup<TurnWrite, void> };

  constructor(connection: Connection) {
    this.sessions = sessionModel(connection);
    this.messages = messageModel(connection);
    this.sessionCollection = this.sessions.collection as unknown as Collection<SessionDoc>;
    this.messageCollection = this.messages.collection as unknown as Collection<MessageDoc>;
  }

  async init(): Promise<void> {
    await Promise.all([this.sessions.init(), this.messages.init()]);
  }

  /** The agent's session a client names: a generated id, or one the client chose. */
  async findSession(tenantId: string, agentId: string, key: string): Promise<Session | undefined> {
    const doc = await this.sessions
      .findOne({ _id: { $in: [key, clientSessionId(agentId, key)] }, tenant_id: tenantId, agent_id: agentId })
      .lean<SessionDoc>();
    return doc ? toSession(doc) : undefined;
  }

  /**
   * The agent's session with a client-chosen id, created on first use. An upsert on the stored id
   * (which embeds the agent id): concurrent first uses create one session, the loser of the race
   * reads the winner's.
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
            { upsert: true, new: true },
          )
          .lean<SessionDoc>();
        return toSession(doc!);
      } catch (error) {
        if ((error as { code?: number }).code !== 11000 || attempt >= 2) throw error;
      }
    }
  }

  async insertSession(session: Session, dbSession?: ClientSession): Promise<void> {
    await this.sessionCollection.insertOne(toSessionDoc(session), { session: dbSession });
  }

  async insertMessage(message: ChatMessage, dbSession?: ClientSession): Promise<void> {
    await this.messageCollection.insertOne(toMessageDoc(message), { session: dbSession });
  }

  async insertMessages(messages: ChatMessage[], dbSession?: ClientSession): Promise<void> {
    if (messages.length === 0) return;
    await this.messageCollection.insertMany(messages.map(toMessageDoc), { session: dbSession });
  }

  async touchSession(tenantId: string, id: string, added: number, at: Date, dbSession?: ClientSession): Promise<void> {
    await this.sessionCollection.updateOne(
      { _id: id, tenant_id: tenantId },
      { $inc: { message_count: added }, $max: { last_message_at: at } },
      { session: dbSession },
    );
  }

  /**
   * Stores a turn's message with its session write and events in one outbox run, committed with
   * the runs of concurrent turns (of any tenant) that wait meanwhile: one transaction and a round
   * trip per kind of write for the group instead of a transaction and three round trips per turn.
   * A write that fails sends every run of its group through its own transaction again.
   */
  storeTurn(outbox: Outbox, write: TurnWrite): Promise<void> {
    if (this.turns?.outbox !== outbox) {
      this.turns = { outbox, group: outbox.group((writes, session) => this.writeTurns(writes, session)) };
    }
    return this.turns.group.run(write);
  }

  /**
   * The domain writes of a group of turns: the new sessions (one insertMany), the messages (one
   * insertMany), the touches of existing sessions (one bulkWrite, a session's touches of the group
   * folded into one update). Answers per turn its events, or the error of its own writes; a turn
   * whose session insert failed writes nothing more.
   */
  async writeTurns(
    writes: TurnWrite[],
    dbSession?: ClientSession,
  ): Promise<Array<{ result: void; events: OutboxEvent[] } | Error>> {
    const outcome: Array<Error | undefined> = writes.map(() => undefined);
    const withSession = <D extends SessionDoc | MessageDoc>(collection: Collection<D>) => ({
      insertMany: (docs: D[], options: { ordered: false }) =>
        collection.insertMany(docs as never, { ...options, session: dbSession }),
    });
    const step = async (indexes: number[], run: (picked: number[]) => Promise<Array<Error | undefined>>) => {
      // In a transaction a failed write has aborted it: the group is retried run by run, and a
      // further command would fail as a transient error that the driver retries the group on.
      if (dbSession && outcome.some((e) => e !== undefined)) return;
      const live = indexes.filter((i) => outcome[i] === undefined);
      if (live.length === 0) return;
      (await run(live)).forEach((error, k) => {
        if (error) outcome[live[k]!] = error;
      });
    };
    const all = writes.map((_, i) => i);
    await step(
      all.filter((i) => writes[i]!.newSession),
      (picked) =>
        insertEach(
          withSession(this.sessionCollection),
          picked.map((i) => toSessionDoc(writes[i]!.newSession!)),
        ),
    );
    await step(all, (picked) =>
      insertEach(
        withSession(this.messageCollection),
        picked.map((i) => toMessageDoc(writes[i]!.message)),
      ),
    );
    await step(
      all.filter((i) => writes[i]!.touch),
      (picked) =>
        this.touchEach(
          picked.map((i) => writes[i]!),
          dbSession,
        ),
    );
    return writes.map((w, i) => outcome[i] ?? { result: undefined, events: w.events });
  }

  /** Touches sessions, one update per session (its touches summed), in one round trip; answers per touch. */
  private async touchEach(writes: TurnWrite[], dbSession?: ClientSession): Promise<Array<Error | undefined>> {
    const bySession = new Map<
      string,
      { filter: { _id: string; tenant_id: string }; added: number; at: Date; of: number[] }
    >();
    writes.forEach((w, i) => {
      const key = `${w.message.tenantId}\u0000${w.message.sessionId}`;
      const entry = bySession.get(key);
      if (entry) {
        entry.added += w.touch!.added;
        if (w.touch!.at > entry.at) entry.at = w.touch!.at;
        entry.of.push(i);
      } else {
        bySession.set(key, {
          filter: { _id: w.message.sessionId, tenant_id: w.message.tenantId },
          added: w.touch!.added,
          at: w.touch!.at,
          of: [i],
        });
      }
    });
    const entries = [...bySession.values()];
    const ops: AnyBulkWriteOperation<SessionDoc>[] = entries.map((e) => ({
      updateOne: { filter: e.filter, update: { $inc: { message_count: e.added }, $max: { last_message_at: e.at } } },
    }));
    const results: Array<Error | undefined> = writes.map(() => undefined);
    try {
      await this.sessionCollection.bulkWrite(ops as never, { ordered: false, session: dbSession });
    } catch (error) {
      // A session's failed update fails every write folded into it.
      perOperationErrors(error, entries.length).forEach((failed, index) => {
        if (failed) for (const i of entries[index]!.of) results[i] = failed;
      });
    }
    return results;
  }

  /** The session's latest user and assistant messages (tool messages are not history), oldest first. */
  async recentMessages(tenantId: string, sessionId: string, limit: number): Promise<ChatMessage[]> {
    if (limit <= 0) return [];
    const docs = await this.messages
      .find({ tenant_id: tenantId, session_id: sessionId, role: { $ne: 'tool' } })
      .sort({ _id: -1 })
      .limit(limit)
      .lean<MessageDoc[]>();
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

  /** A session's messages in conversation order (oldest first). */
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

  /** Messages whose charge failed, oldest first (all tenants: the retry job works for everyone). */
  async pendingCharges(limit: number): Promise<ChatMessage[]> {
    const docs = await this.messages.find({ charge_pending: true }).sort({ _id: 1 }).limit(limit).lean<MessageDoc[]>();
    return docs.map(toMessage);
  }

  /** The reply's credits are settled: it leaves the retry job's list. */
  async markCharged(tenantId: string, id: string): Promise<void> {
    await this.charged.submit(tenantId, id);
  }

  async deleteAgent(tenantId: string, agentId: string): Promise<{ sessions: number; messages: number }> {
    const [sessions, messages] = await Promise.all([
      this.sessions.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
      this.messages.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
    ]);
    return { sessions: sessions.deletedCount, messages: messages.deletedCount };
  }
}
