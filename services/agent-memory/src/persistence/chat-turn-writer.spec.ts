import type { Outbox } from '@agentplatform/events';
import type { ClientSession } from 'mongoose';
import type { TurnWrite } from '../domain/chat-store.js';
import type { ChatMessage, PendingCharge, Session } from '../domain/chat.js';
import { ChatTurnWriter, type TurnCollections } from './chat-turn-writer.js';

/**
 * The driver's collections as the turn writes use them: every call is a round trip (recorded);
 * an insert of a document whose id starts with "dup" fails as a duplicate key, the others are
 * stored, as an unordered insertMany does.
 */
function fakeCollection() {
  const calls: Array<{ op: string; docs: unknown[]; session?: unknown }> = [];
  const stored: Array<{ _id: string }> = [];
  return {
    calls,
    stored,
    async insertMany(docs: Array<{ _id: string }>, options: { session?: unknown }) {
      calls.push({ op: 'insertMany', docs, session: options.session });
      const writeErrors = docs
        .map((doc, index) => ({ doc, index }))
        .filter(({ doc }) => doc._id.startsWith('dup'))
        .map(({ index }) => ({ index, code: 11000, errmsg: 'E11000 duplicate key' }));
      stored.push(...docs.filter((doc) => !doc._id.startsWith('dup')));
      if (writeErrors.length > 0) throw Object.assign(new Error('bulk write failed'), { writeErrors });
    },
    async bulkWrite(ops: unknown[], options: { session?: unknown }) {
      calls.push({ op: 'bulkWrite', docs: ops, session: options.session });
    },
  };
}

/** An outbox whose group is never run here: the specs call the group's write directly. */
const outbox = { group: () => ({ run: async () => undefined }) } as unknown as Outbox;

function repository() {
  const sessions = fakeCollection();
  const messages = fakeCollection();
  const charges = fakeCollection();
  const collections = { sessions, messages, charges } as unknown as TurnCollections;
  return {
    sessions,
    messages,
    charges,
    chats: new ChatTurnWriter(collections, outbox, { add: async () => undefined }),
  };
}

const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, s));

function message(id: string, sessionId: string, tenantId = 'ten_1'): ChatMessage {
  return { id, tenantId, agentId: 'agt_1', sessionId, role: 'user', content: id, createdAt: at(0) };
}

function session(id: string): Session {
  return {
    id,
    key: id,
    tenantId: 'ten_1',
    agentId: 'agt_1',
    title: 't',
    messageCount: 1,
    createdAt: at(0),
    lastMessageAt: at(0),
  };
}

const touch = (s: number) => ({ added: 1, at: at(s) });

describe('ChatTurnWriter.writeTurns', () => {
  it('writes a group with one round trip per kind and folds a session’s touches into one update', async () => {
    const { chats, sessions, messages } = repository();
    const writes: TurnWrite[] = [
      { message: message('msg_1', 'ses_a'), touch: touch(1), events: [] },
      { message: message('msg_2', 'ses_new'), newSession: session('ses_new'), events: [] },
      { message: message('msg_3', 'ses_a'), touch: touch(3), events: [] },
      { message: message('msg_4', 'ses_a', 'ten_2'), touch: touch(2), events: [] },
    ];

    const outcome = await chats.writeTurns(writes);

    expect(outcome.every((o) => !(o instanceof Error))).toBe(true);
    expect(sessions.calls.map((c) => c.op)).toEqual(['insertMany', 'bulkWrite']);
    expect(messages.calls.map((c) => c.op)).toEqual(['insertMany']);
    expect(messages.stored.map((m) => m._id)).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4']);
    // Two touches of ten_1's ses_a become one; another tenant's session of the same id stays apart.
    expect(sessions.calls[1]!.docs).toEqual([
      {
        updateOne: {
          filter: { _id: 'ses_a', tenant_id: 'ten_1' },
          update: { $inc: { message_count: 2 }, $max: { last_message_at: at(3) } },
        },
      },
      {
        updateOne: {
          filter: { _id: 'ses_a', tenant_id: 'ten_2' },
          update: { $inc: { message_count: 1 }, $max: { last_message_at: at(2) } },
        },
      },
    ]);
  });

  it('without a transaction fails only the turn whose write failed, and does not count its message', async () => {
    const { chats, sessions } = repository();
    const outcome = await chats.writeTurns([
      { message: message('msg_1', 'ses_a'), touch: touch(1), events: [] },
      { message: message('dup_2', 'ses_a'), touch: touch(2), events: [] },
    ]);

    expect(outcome[0]).toEqual({ result: undefined, events: [] });
    expect(outcome[1]).toBeInstanceOf(Error);
    expect(sessions.calls[0]!.docs).toEqual([
      {
        updateOne: {
          filter: { _id: 'ses_a', tenant_id: 'ten_1' },
          update: { $inc: { message_count: 1 }, $max: { last_message_at: at(1) } },
        },
      },
    ]);
  });

  it('in a transaction stops at the first failed write (the group is then retried run by run)', async () => {
    const { chats, sessions, messages } = repository();
    const dbSession = { id: 'txn' } as unknown as ClientSession;
    const outcome = await chats.writeTurns(
      [
        { message: message('msg_1', 'ses_a'), touch: touch(1), events: [] },
        { message: message('dup_2', 'ses_b'), touch: touch(2), events: [] },
      ],
      dbSession,
    );

    expect(outcome[1]).toBeInstanceOf(Error);
    expect(messages.calls.map((c) => c.session)).toEqual([dbSession]);
    // No command after the aborted transaction's failed write.
    expect(sessions.calls).toEqual([]);
  });

  it('stores a reply’s charge with it, and a turn that stores no messages writes its charge alone', async () => {
    const { chats, sessions, messages, charges } = repository();
    const charge = (id: string): PendingCharge => ({
      id,
      tenantId: 'ten_1',
      credits: 2,
      totalTokens: 1_500,
      reservations: [{ operationId: `chat:${id}`, amount: 3 }],
      createdAt: at(5),
    });
    const outcome = await chats.writeTurns([
      { message: message('msg_1', 'ses_a'), touch: touch(1), charge: charge('msg_1'), events: [] },
      { charge: charge('msg_2'), events: [] },
      { events: [] },
    ]);

    expect(outcome.every((o) => !(o instanceof Error))).toBe(true);
    expect(messages.stored.map((m) => m._id)).toEqual(['msg_1']);
    expect(charges.stored).toEqual([
      {
        _id: 'msg_1',
        tenant_id: 'ten_1',
        credits: 2,
        total_tokens: 1_500,
        reservations: [{ operation_id: 'chat:msg_1', amount: 3 }],
        created_at: at(5),
      },
      expect.objectContaining({ _id: 'msg_2' }),
    ]);
    // Only the stored message counts in its session.
    expect(sessions.calls.map((c) => c.docs.length)).toEqual([1]);
  });
});
