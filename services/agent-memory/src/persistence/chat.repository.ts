import type { ClientSession, Connection, Model } from 'mongoose';
import type { ChatMessage, Session } from '../domain/chat.js';
import { messageModel, sessionModel, type MessageDoc, type SessionDoc } from './chat.schema.js';

function toSession(doc: SessionDoc): Session {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    agentId: doc.agent_id,
    title: doc.title ?? '',
    messageCount: doc.message_count ?? 0,
    createdAt: doc.created_at,
    lastMessageAt: doc.last_message_at,
  };
}

function toMessage(doc: MessageDoc): ChatMessage {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    agentId: doc.agent_id,
    sessionId: doc.session_id,
    role: doc.role,
    content: doc.content,
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
    createdAt: doc.created_at,
  };
}

function toMessageDoc(m: ChatMessage): MessageDoc {
  return {
    _id: m.id,
    tenant_id: m.tenantId,
    agent_id: m.agentId,
    session_id: m.sessionId,
    role: m.role,
    content: m.content,
    model: m.model,
    usage: m.usage
      ? {
          prompt_tokens: m.usage.promptTokens,
          completion_tokens: m.usage.completionTokens,
          total_tokens: m.usage.totalTokens,
        }
      : undefined,
    latency_ms: m.latencyMs,
    credits: m.credits,
    ...(m.chargePending ? { charge_pending: true } : {}),
    created_at: m.createdAt,
  };
}

export class ChatRepository {
  private readonly sessions: Model<SessionDoc>;
  private readonly messages: Model<MessageDoc>;

  constructor(connection: Connection) {
    this.sessions = sessionModel(connection);
    this.messages = messageModel(connection);
  }

  async init(): Promise<void> {
    await Promise.all([this.sessions.init(), this.messages.init()]);
  }

  async findSession(tenantId: string, agentId: string, id: string): Promise<Session | undefined> {
    const doc = await this.sessions.findOne({ _id: id, tenant_id: tenantId, agent_id: agentId }).lean<SessionDoc>();
    return doc ? toSession(doc) : undefined;
  }

  async insertSession(session: Session, dbSession?: ClientSession): Promise<void> {
    await this.sessions.create(
      [
        {
          _id: session.id,
          tenant_id: session.tenantId,
          agent_id: session.agentId,
          title: session.title,
          message_count: session.messageCount,
          created_at: session.createdAt,
          last_message_at: session.lastMessageAt,
        },
      ],
      { session: dbSession },
    );
  }

  async insertMessage(message: ChatMessage, dbSession?: ClientSession): Promise<void> {
    await this.messages.create([toMessageDoc(message)], { session: dbSession });
  }

  async touchSession(tenantId: string, id: string, added: number, at: Date, dbSession?: ClientSession): Promise<void> {
    await this.sessions.updateOne(
      { _id: id, tenant_id: tenantId },
      { $inc: { message_count: added }, $max: { last_message_at: at } },
      { session: dbSession },
    );
  }

  /** The session's latest messages, oldest first. */
  async recentMessages(tenantId: string, sessionId: string, limit: number): Promise<ChatMessage[]> {
    if (limit <= 0) return [];
    const docs = await this.messages
      .find({ tenant_id: tenantId, session_id: sessionId })
      .sort({ _id: -1 })
      .limit(limit)
      .lean<MessageDoc[]>();
    return docs.reverse().map(toMessage);
  }

  async listSessions(
    tenantId: string,
    agentId: string,
    page: number,
    perPage: number,
  ): Promise<{ sessions: Session[]; total: number }> {
    const query = { tenant_id: tenantId, agent_id: agentId };
    const [docs, total] = await Promise.all([
      this.sessions
        .find(query)
        .sort({ last_message_at: -1, _id: -1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .lean<SessionDoc[]>(),
      this.sessions.countDocuments(query),
    ]);
    return { sessions: docs.map(toSession), total };
  }

  /** A session's messages in conversation order (oldest first). */
  async listMessages(
    tenantId: string,
    sessionId: string,
    page: number,
    perPage: number,
  ): Promise<{ messages: ChatMessage[]; total: number }> {
    const query = { tenant_id: tenantId, session_id: sessionId };
    const [docs, total] = await Promise.all([
      this.messages
        .find(query)
        .sort({ _id: 1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .lean<MessageDoc[]>(),
      this.messages.countDocuments(query),
    ]);
    return { messages: docs.map(toMessage), total };
  }

  /** Messages whose charge failed, oldest first (all tenants: the retry job works for everyone). */
  async pendingCharges(limit: number): Promise<ChatMessage[]> {
    const docs = await this.messages.find({ charge_pending: true }).sort({ _id: 1 }).limit(limit).lean<MessageDoc[]>();
    return docs.map(toMessage);
  }

  async markCharged(tenantId: string, id: string): Promise<void> {
    await this.messages.updateOne({ _id: id, tenant_id: tenantId }, { $unset: { charge_pending: '' } });
  }

  async deleteAgent(tenantId: string, agentId: string): Promise<{ sessions: number; messages: number }> {
    const [sessions, messages] = await Promise.all([
      this.sessions.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
      this.messages.deleteMany({ tenant_id: tenantId, agent_id: agentId }),
    ]);
    return { sessions: sessions.deletedCount, messages: messages.deletedCount };
  }
}
