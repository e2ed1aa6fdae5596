import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import type { Outbox } from '@agentplatform/events';
import { callVerdicts, newId, recordQueryShapes } from '@agentplatform/service-kit';
import { suiteFixture } from '@agentplatform/testing';
import type { ChatMessage } from '../src/domain/chat';
import type { TurnWrite } from '../src/domain/chat-store';
import { ChatRepository } from '../src/persistence/chat.repository';
import { toMessageDocument } from '../src/persistence/chat.mappers';

/** An outbox that runs each turn's write alone, without events: the repository's writes as stored. */
const outbox = {
  group: (write: (writes: TurnWrite[]) => Promise<Array<unknown>>) => ({
    run: async (w: TurnWrite) => {
      const [outcome] = await write([w]);
      if (outcome instanceof Error) throw outcome;
    },
  }),
} as unknown as Outbox;

async function startStore() {
  const dbName = `chat_history_${randomBytes(4).toString('hex')}`;
  const connection = await mongoose.createConnection(process.env.MONGODB_URI!, { dbName }).asPromise();
  const chats = new ChatRepository(connection, outbox);
  await chats.init();
  return {
    connection,
    chats,
    async stop() {
      await connection.dropDatabase();
      await connection.close();
    },
  };
}

function message(sessionId: string, role: ChatMessage['role'], content: string): ChatMessage {
  return { id: newId('msg'), tenantId: 'ten_a', agentId: 'agt_a', sessionId, role, content, createdAt: new Date() };
}

describe("a chat turn's history on the real MongoDB-compatible server", () => {
  const store = suiteFixture(() => startStore());

  it("reads the session's last messages by _id, not by a scan of every message", async () => {
    const { connection, chats } = store;
    // Other sessions' messages, and the session's own from before windows: a sorted query reads all.
    const others = Array.from({ length: 2_000 }, (_, i) => message(`ses_other${i % 40}`, 'user', `other ${i}`));
    const early = Array.from({ length: 6 }, (_, i) => message('ses_a', 'user', `early ${i}`));
    await connection.collection('messages').insertMany([...others, ...early].map(toMessageDocument) as never[]);
    const at = new Date();
    await connection.collection('sessions').insertOne({
      _id: 'ses_a',
      tenant_id: 'ten_a',
      agent_id: 'agt_a',
      title: '',
      message_count: 0,
      created_at: at,
      last_message_at: at,
    } as never);
    for (let turn = 0; turn < 15; turn += 1) {
      await chats.storeTurn({ message: message('ses_a', 'user', `question ${turn}`), events: [] });
      await chats.appendToolMessage(message('ses_a', 'tool', `lookup ${turn}`));
      await chats.storeTurn({ message: message('ses_a', 'assistant', `answer ${turn}`), events: [] });
    }
    const history = [
      ...early.map((m) => m.content),
      ...Array.from({ length: 15 }, (_, t) => [`question ${t}`, `answer ${t}`]).flat(),
    ];
    const last = (n: number) => history.slice(-n);

    // The first turn on the session fills its window from the messages stored before (one scan, once).
    expect((await chats.recentMessages('ten_a', 'ses_a', 20)).map((m) => m.content)).toEqual(last(20));

    const seen = recordQueryShapes(connection);
    const recent = await chats.recentMessages('ten_a', 'ses_a', 20);
    const all = await chats.recentMessages('ten_a', 'ses_a', 50);
    const otherTenant = await chats.recentMessages('ten_b', 'ses_a', 20);
    connection.set('debug', false);

    expect(recent.map((m) => m.content)).toEqual(last(20));
    expect(all.map((m) => m.content)).toEqual(last(36));
    expect(otherTenant).toEqual([]);
    // Every call is an index lookup on the stand-in; the sorted query would add a scan here.
    expect(callVerdicts(connection, seen)).toEqual([
      'message_windows.findOne(_id) -> _id (stand-in: index)',
      'messages.find(_id) -> _id (stand-in: index)',
    ]);

    await chats.deleteAgent('ten_a', 'agt_a');
    expect(await chats.newest.model.exists({ _id: 'ses_a' })).toBeNull();
  });

  it("never fills a new session's window by a scan: it is complete from the session's creation", async () => {
    const { connection, chats } = store;
    // Enough other messages that a scan would be what the first page of a new session costs.
    const others = Array.from({ length: 500 }, (_, i) => message(`ses_busy${i % 10}`, 'user', `other ${i}`));
    await connection.collection('messages').insertMany(others.map(toMessageDocument) as never[]);
    const at = new Date();

    // A session the service names, created with its first message.
    const created = {
      id: 'ses_new',
      key: 'ses_new',
      tenantId: 'ten_a',
      agentId: 'agt_a',
      title: 'hi',
      messageCount: 1,
    };
    const first = message('ses_new', 'user', 'hello');
    await chats.storeTurn({ message: first, newSession: { ...created, createdAt: at, lastMessageAt: at }, events: [] });
    await chats.storeTurn({
      message: message('ses_new', 'assistant', 'hi there'),
      touch: { added: 1, at },
      events: [],
    });
    // A session the client names: opened, then its first turn touches it.
    const opened = await chats.openClientSession('ten_a', 'agt_a', 'support-42', { title: 'help', at });
    await chats.storeTurn({ message: message(opened.id, 'user', 'help me'), touch: { added: 1, at }, events: [] });

    const seen = recordQueryShapes(connection);
    const named = await chats.recentMessages('ten_a', 'ses_new', 20);
    const keyed = await chats.recentMessages('ten_a', opened.id, 20);
    connection.set('debug', false);

    expect(named.map((m) => m.content)).toEqual(['hello', 'hi there']);
    expect(keyed.map((m) => m.content)).toEqual(['help me']);
    expect(callVerdicts(connection, seen)).toEqual([
      'message_windows.findOne(_id) -> _id (stand-in: index)',
      'messages.find(_id) -> _id (stand-in: index)',
    ]);
  });
});
