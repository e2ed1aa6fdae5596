import type { OutboxEvent } from '@agentplatform/events';
import type { ChatMessage, PendingCharge, Session } from './chat.js';

/**
 * One stored step of a turn, with its events: the user message (and the new session it opens),
 * or the reply and its pending charge. A turn that stores no messages (docs/design.md section 11)
 * writes only its events and, with its reply, its pending charge.
 */
export interface TurnWrite {
  /** A session created with this message (its count already includes it). */
  newSession?: Session;
  message?: ChatMessage;
  /** Counts the message in its (existing) session. */
  touch?: { added: number; at: Date };
  /** The reply's charge, settled right after: the retry job's until then. */
  charge?: PendingCharge;
  events: OutboxEvent[];
}

/** Chat sessions and messages as the use cases keep them (persistence/chat.repository.ts). */
export interface ChatStore {
  /** The agent's session a client names: a generated id, or one the client chose. */
  findSession(tenantId: string, agentId: string, key: string): Promise<Session | undefined>;
  /** The agent's session with a client-chosen id, created on first use (concurrent first uses: one). */
  openClientSession(
    tenantId: string,
    agentId: string,
    key: string,
    init: { title: string; at: Date },
  ): Promise<Session>;
  /** Stores a step of a turn with its events, all or nothing. */
  storeTurn(write: TurnWrite): Promise<void>;
  /** Stores a tool message of a turn and counts it in its session. */
  appendToolMessage(message: ChatMessage): Promise<void>;
  /** The session's latest user and assistant messages (tool messages are not history), oldest first. */
  recentMessages(tenantId: string, sessionId: string, limit: number): Promise<ChatMessage[]>;
  listSessions(
    tenantId: string,
    agentId: string,
    skip: number,
    limit: number,
  ): Promise<{ sessions: Session[]; total: number }>;
  /** A session's messages in conversation order (oldest first). */
  listMessages(
    tenantId: string,
    sessionId: string,
    skip: number,
    limit: number,
  ): Promise<{ messages: ChatMessage[]; total: number }>;
  /** Charges not settled yet, oldest first (all tenants: the retry job works for everyone). */
  pendingCharges(limit: number): Promise<PendingCharge[]>;
  /** The charge is settled: it leaves the retry job's list. */
  markCharged(tenantId: string, id: string): Promise<void>;
  deleteAgent(tenantId: string, agentId: string): Promise<{ sessions: number; messages: number }>;
}
