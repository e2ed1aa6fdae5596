import { ConflictError, isDuplicateKeyError, newId } from '@agentplatform/service-kit';
import { chainEntryId } from '../domain/credit-chain.js';
import { emailIssue, normalizeEmail, passwordIssue, throwIfIssues } from '../domain/account-rules.js';
import type { User } from '../persistence/user.repository.js';
import type { UseCaseDeps } from './deps.js';

export interface RegisterInput {
  email: string;
  password: string;
  fullName: string;
  company: string;
}

export interface RegisterResult {
  user: User;
  tenantId: string;
  credits: number;
}

const NAME_MAX = 200;

/** Creates the user, a tenant the user owns (named after the company) and its welcome credits. */
export async function registerUser(deps: UseCaseDeps, input: RegisterInput): Promise<RegisterResult> {
  const email = normalizeEmail(input.email);
  throwIfIssues([
    emailIssue(email),
    passwordIssue(input.password),
    input.fullName.length > NAME_MAX
      ? { field: 'full_name', message: `must be at most ${NAME_MAX} characters` }
      : undefined,
    input.company.length > NAME_MAX
      ? { field: 'company', message: `must be at most ${NAME_MAX} characters` }
      : undefined,
  ]);
  if (await deps.users.findByEmail(email)) throw new ConflictError('A user with this e-mail already exists');

  const now = new Date();
  const user: User = {
    id: newId('usr'),
    email,
    passwordHash: await deps.hasher.hash(input.password),
    fullName: input.fullName.trim(),
    isActive: true,
    createdAt: now,
  };
  const tenantId = newId('ten');
  const credits = deps.settings.welcomeCredits;
  try {
    await deps.outbox.run(async (session) => {
      // The user goes first: its unique e-mail index settles a race between two registrations.
      await deps.users.insert(user, session);
      await deps.tenants.insertTenant(
        {
          id: tenantId,
          name: input.company.trim() || email.split('@')[0],
          plan: deps.settings.defaultPlan,
          createdAt: now,
        },
        session,
      );
      await deps.tenants.insertMembership({ tenantId, userId: user.id, role: 'owner', createdAt: now }, session);
      await deps.credits.openAccount(tenantId, credits, credits >= deps.settings.lowCreditThreshold, session);
      await deps.credits.insertEntry(
        {
          id: chainEntryId(tenantId, 1),
          tenantId,
          seq: 1,
          type: 'grant',
          amount: credits,
          balanceAfter: credits,
          idempotencyKey: 'welcome',
          description: 'Welcome credits',
          createdAt: now,
        },
        session,
      );
      return { result: undefined, events: [] };
    });
  } catch (error) {
    if (isDuplicateKeyError(error)) throw new ConflictError('A user with this e-mail already exists');
    throw error;
  }
  return { user, tenantId, credits };
}
