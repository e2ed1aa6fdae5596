import type { ChatMessage, Session } from '../domain/chat.js';
import { clientSessionId } from '../persistence/chat.repository.js';
import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { createAgent } from './manage-agents.js';
import { listMessages, listSessions } from './read-sessions.js';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

async function setup() {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  const agent = await createAgent(deps, { tenantId: 't1', name: 'Helper', type: 'assistant' });
  const other = await createAgent(deps, { tenantId: 't1', name: 'Other', type: 'assistant' });
  const foreign = await createAgent(deps, { tenantId: 't2', name: 'Theirs', type: 'assistant' });
  const addSession = (tenantId: string, agentId: string, id: string, lastMinute: number, key = id): Session => {
    const session: Session = {
      id,
      key,
      tenantId,
      agentId,
      title: `about ${id}`,
      messageCount: 0,
      createdAt: at(0),
      lastMessageAt: at(lastMinute),
    };
    fakes.chats.sessions.set(id, session);
    return session;
  };
  const addMessage = (session: Session, id: string, role: ChatMessage['role'], content: string) =>
    fakes.chats.messages.set(id, {
      id,
      tenantId: session.tenantId,
      agentId: session.agentId,
      sessionId: session.id,
      role,
      content,
      createdAt: at(1),
    });
  return { deps, agent, other, foreign, addSession, addMessage };
}

describe('listSessions', () => {
  it("lists the agent's sessions, most recently active first, paged with the total", async () => {
    const { deps, agent, other, addSession } = await setup();
    for (let i = 1; i <= 5; i++) addSession('t1', agent.id, `ses_${i}`, [3, 5, 1, 4, 2][i - 1]!);
    addSession('t1', other.id, 'ses_other', 9);

    const first = await listSessions(deps, { tenantId: 't1', agentId: agent.id, page: 1, perPage: 2 });
    expect(first.sessions.map((s) => s.id)).toEqual(['ses_2', 'ses_4']);
    expect(first).toMatchObject({ total: 5, page: 1, perPage: 2 });
    const last = await listSessions(deps, { tenantId: 't1', agentId: agent.id, page: 3, perPage: 2 });
    expect(last.sessions.map((s) => s.id)).toEqual(['ses_3']);
    const beyond = await listSessions(deps, { tenantId: 't1', agentId: agent.id, page: 4, perPage: 2 });
    expect(beyond).toMatchObject({ sessions: [], total: 5 });
  });

  it('pages 20 by default and at most 100 per page', async () => {
    const { deps, agent, addSession } = await setup();
    for (let i = 0; i < 120; i++) addSession('t1', agent.id, `ses_${String(i).padStart(3, '0')}`, i % 60);
    const byDefault = await listSessions(deps, { tenantId: 't1', agentId: agent.id, page: 0, perPage: 0 });
    expect(byDefault).toMatchObject({ page: 1, perPage: 20, total: 120 });
    expect(byDefault.sessions).toHaveLength(20);
    const capped = await listSessions(deps, { tenantId: 't1', agentId: agent.id, page: 1, perPage: 500 });
    expect(capped.perPage).toBe(100);
    expect(capped.sessions).toHaveLength(100);
  });

  it("answers 404 for another tenant's agent, and an unknown one", async () => {
    const { deps, foreign, addSession } = await setup();
    addSession('t2', foreign.id, 'ses_theirs', 1);
    await expect(
      listSessions(deps, { tenantId: 't1', agentId: foreign.id, page: 1, perPage: 20 }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      listSessions(deps, { tenantId: 't1', agentId: 'agt_missing', page: 1, perPage: 20 }),
    ).rejects.toMatchObject({ code: 'not_found' });
    // The owner still sees it.
    const theirs = await listSessions(deps, { tenantId: 't2', agentId: foreign.id, page: 1, perPage: 20 });
    expect(theirs.sessions.map((s) => s.id)).toEqual(['ses_theirs']);
  });
});

describe('listMessages', () => {
  it("answers the session's messages oldest first, tool calls included, paged", async () => {
    const { deps, agent, addSession, addMessage } = await setup();
    const session = addSession('t1', agent.id, 'ses_a', 1);
    addMessage(session, 'msg_03', 'assistant', 'the answer');
    addMessage(session, 'msg_01', 'user', 'a question');
    addMessage(session, 'msg_01.t001', 'tool', 'a tool call');
    addMessage(session, 'msg_04', 'user', 'thanks');

    const all = await listMessages(deps, {
      tenantId: 't1',
      agentId: agent.id,
      sessionId: 'ses_a',
      page: 1,
      perPage: 20,
    });
    expect(all.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'a question'],
      ['tool', 'a tool call'],
      ['assistant', 'the answer'],
      ['user', 'thanks'],
    ]);
    expect(all).toMatchObject({ total: 4, session: { id: 'ses_a' } });
    const second = await listMessages(deps, {
      tenantId: 't1',
      agentId: agent.id,
      sessionId: 'ses_a',
      page: 2,
      perPage: 3,
    });
    expect(second.messages.map((m) => m.content)).toEqual(['thanks']);
    expect(second).toMatchObject({ total: 4, page: 2, perPage: 3 });
  });

  it("finds a client-chosen session by the client's own id", async () => {
    const { deps, agent, addSession, addMessage } = await setup();
    const session = addSession('t1', agent.id, clientSessionId(agent.id, 'order-42'), 1, 'order-42');
    addMessage(session, 'msg_01', 'user', 'where is my order?');
    const found = await listMessages(deps, {
      tenantId: 't1',
      agentId: agent.id,
      sessionId: 'order-42',
      page: 1,
      perPage: 20,
    });
    expect(found.session.key).toBe('order-42');
    expect(found.messages.map((m) => m.content)).toEqual(['where is my order?']);
  });

  it("answers 404 for another agent's session, another tenant's session and an unknown one", async () => {
    const { deps, agent, other, foreign, addSession, addMessage } = await setup();
    addMessage(addSession('t1', other.id, 'ses_other', 1), 'msg_1', 'user', 'for the other agent');
    addMessage(addSession('t2', foreign.id, 'ses_foreign', 1), 'msg_2', 'user', 'for another tenant');
    const read = (tenantId: string, agentId: string, sessionId: string) =>
      listMessages(deps, { tenantId, agentId, sessionId, page: 1, perPage: 20 });

    await expect(read('t1', agent.id, 'ses_other')).rejects.toMatchObject({ code: 'not_found', message: /Session/ });
    await expect(read('t1', agent.id, 'ses_foreign')).rejects.toMatchObject({ code: 'not_found' });
    await expect(read('t1', foreign.id, 'ses_foreign')).rejects.toMatchObject({ code: 'not_found', message: /Agent/ });
    await expect(read('t1', agent.id, 'ses_none')).rejects.toMatchObject({ code: 'not_found' });
    await expect(read('t2', foreign.id, 'ses_foreign')).resolves.toMatchObject({ total: 1 });
  });
});
