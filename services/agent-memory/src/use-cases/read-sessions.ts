import { NotFoundError, paging } from '@agentplatform/service-kit';
import type { ChatMessage, Session } from '../domain/chat.js';
import type { UseCaseDeps } from './deps.js';

async function requireAgent(deps: UseCaseDeps, tenantId: string, agentId: string): Promise<void> {
  if (!(await deps.agents.find(tenantId, agentId))) throw new NotFoundError('Agent');
}

/** The agent's sessions, most recently active first. */
export async function listSessions(
  deps: UseCaseDeps,
  input: { tenantId: string; agentId: string; page: number; perPage: number },
): Promise<{ sessions: Session[]; total: number; page: number; perPage: number }> {
  const { tenantId, agentId } = input;
  await requireAgent(deps, tenantId, agentId);
  const { page, perPage, skip } = paging(input.page, input.perPage);
  const { sessions, total } = await deps.chats.listSessions(tenantId, agentId, skip, perPage);
  return { sessions, total, page, perPage };
}

/** One session's messages in conversation order (oldest first), tool calls included. */
export async function listMessages(
  deps: UseCaseDeps,
  input: { tenantId: string; agentId: string; sessionId: string; page: number; perPage: number },
): Promise<{ session: Session; messages: ChatMessage[]; total: number; page: number; perPage: number }> {
  const { tenantId, agentId, sessionId } = input;
  await requireAgent(deps, tenantId, agentId);
  const session = await deps.chats.findSession(tenantId, agentId, sessionId);
  if (!session) throw new NotFoundError('Session');
  const { page, perPage, skip } = paging(input.page, input.perPage);
  const { messages, total } = await deps.chats.listMessages(tenantId, session.id, skip, perPage);
  return { session, messages, total, page, perPage };
}
