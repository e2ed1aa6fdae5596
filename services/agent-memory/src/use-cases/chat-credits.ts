import { DomainError } from '@agentplatform/service-kit';
import { chatCost, chatEstimate, type ChatReservation, type PendingCharge, type Usage } from '../domain/chat.js';
import type { UseCaseDeps } from './deps.js';

/** The operation id of a turn's first reservation (also the key of replies stored before rounds reserved). */
function chatOperation(messageId: string): string {
  return `chat:${messageId}`;
}

/**
 * What each reservation of a turn is charged when the turn used `used` credits: each is used up in
 * order, and the last takes any excess (a provider that counted more than the estimate), which
 * identity charges as far as the balance covers it. Their sum is `used`.
 */
export function closings(reservations: readonly ChatReservation[], used: number): Array<ChatReservation> {
  let left = used;
  return reservations.map((r, i) => {
    const charged = i === reservations.length - 1 ? left : Math.min(left, r.amount);
    left -= charged;
    return { operationId: r.operationId, amount: charged };
  });
}

function retryable(error: unknown): boolean {
  return !(error instanceof DomainError) || ['service_unavailable', 'internal_error'].includes(error.code);
}

/**
 * A turn's credits as it goes (docs/design.md section 5). Before each model round it reserves what
 * the turn may cost once that round has run (the tokens used so far, plus the round's prompt and
 * reply limit), as a further reservation for the difference, each keyed by an operation id of its
 * own (`chat:<reply id>`, then `chat:<reply id>:<n>`): identity never reserves one twice. The turn
 * is charged ceil(total tokens / 1000), spread over its reservations, so it costs what a chat
 * costs however many rounds it took.
 */
export class TurnCredits {
  readonly reservations: ChatReservation[] = [];
  private usedTokens = 0;

  constructor(
    private readonly deps: Pick<UseCaseDeps, 'credits' | 'logger'>,
    private readonly tenantId: string,
    private readonly messageId: string,
    private readonly description: string,
  ) {}

  private get reserved(): number {
    return this.reservations.reduce((sum, r) => sum + r.amount, 0);
  }

  /**
   * Reserves before a round whose prompt counts `promptTokens` and whose reply may count
   * `maxTokens`. InsufficientCreditsError (402) when the balance cannot cover it.
   */
  async reserveRound(promptTokens: number, maxTokens: number): Promise<void> {
    const amount = chatEstimate(this.usedTokens + promptTokens, maxTokens) - this.reserved;
    if (amount <= 0) return;
    const n = this.reservations.length;
    const operationId = n === 0 ? chatOperation(this.messageId) : `${chatOperation(this.messageId)}:${n}`;
    await this.deps.credits.reserve({ tenantId: this.tenantId, operationId, amount, description: this.description });
    this.reservations.push({ operationId, amount });
  }

  /**
   * Before a further round: true when it is reserved, false when the balance cannot cover it (the
   * turn ends with what it has). Any other failure throws: no round runs unreserved.
   */
  async tryReserveRound(promptTokens: number, maxTokens: number): Promise<boolean> {
    try {
      await this.reserveRound(promptTokens, maxTokens);
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'insufficient_credits') return false;
      throw error;
    }
  }

  /** A model round finished with this usage. */
  used(usage: Usage): void {
    this.usedTokens += usage.totalTokens;
  }

  /**
   * The turn failed or was stopped (its deadline, its caller gone): the rounds that finished are
   * charged, the rest is given back. Best effort: a reservation identity cannot close now expires.
   */
  async closeFailed(reason: string): Promise<void> {
    const used = this.usedTokens > 0 ? chatCost(this.usedTokens) : 0;
    await Promise.all(
      closings(this.reservations, used).map(({ operationId, amount }) => {
        const closing =
          amount > 0
            ? this.deps.credits.settle({
                tenantId: this.tenantId,
                operationId,
                used: amount,
                description: `Chat stopped (${reason}): ${amount} credits for the rounds that ran`,
              })
            : this.deps.credits.release({
                tenantId: this.tenantId,
                operationId,
                description: `Chat stopped (${reason}): reservation released`,
              });
        return closing.catch((error: unknown) =>
          this.deps.logger.warn(
            { err: error, message_id: this.messageId, operation_id: operationId },
            'could not close a chat reservation; it expires instead',
          ),
        );
      }),
    );
  }
}

/**
 * A turn's billing (docs/design.md section 5): reserves what its first model round can cost before
 * anything is stored or asked (402 when the balance cannot cover it), runs the turn (each further
 * round reserves before it runs), then settles its reservations with the real cost. A turn that
 * fails closes them with what finished; a crash leaves them to expire, and its stored charge to
 * the retry job.
 */
export async function billTurn<T extends { charge: PendingCharge }>(
  deps: Pick<UseCaseDeps, 'credits' | 'chats' | 'logger'>,
  turn: { tenantId: string; messageId: string; agentName: string; promptTokens: number; maxTokens: number },
  run: (credits: TurnCredits) => Promise<T>,
): Promise<T> {
  const credits = new TurnCredits(deps, turn.tenantId, turn.messageId, `Chat with agent ${turn.agentName}: reserved`);
  await credits.reserveRound(turn.promptTokens, turn.maxTokens);
  let done: T;
  try {
    done = await run(credits);
  } catch (error) {
    await credits.closeFailed(error instanceof DomainError ? error.code : 'internal error');
    throw error;
  }
  await settleCharge(deps, done.charge, `Chat with agent ${turn.agentName}: ${done.charge.totalTokens} tokens`);
  return done;
}

/**
 * Settles charges whose settle failed earlier (identity unreachable, or a process died between
 * storing the reply and settling it), oldest first, until one fails again. Settling is idempotent
 * by operation id. Answers how many were settled.
 */
export async function retryPendingCharges(
  deps: Pick<UseCaseDeps, 'credits' | 'chats' | 'logger'>,
  batch = 100,
): Promise<number> {
  let done = 0;
  for (const charge of await deps.chats.pendingCharges(batch)) {
    if (!(await settleCharge(deps, charge, `Chat (${charge.totalTokens} tokens)`))) break;
    done++;
  }
  return done;
}

/** Settles a charge and takes it off the retry job's list; false when it stays there. */
async function settleCharge(
  deps: Pick<UseCaseDeps, 'credits' | 'chats' | 'logger'>,
  charge: PendingCharge,
  description: string,
): Promise<boolean> {
  if (!(await settle(deps, charge, description))) return false;
  await deps.chats.markCharged(charge.tenantId, charge.id);
  return true;
}

/**
 * Settles a turn's reservations with its real cost. False when identity could not be reached: the
 * charge stays due and the retry job settles it (each settle is idempotent).
 */
async function settle(
  deps: Pick<UseCaseDeps, 'credits' | 'logger'>,
  charge: PendingCharge,
  description: string,
): Promise<boolean> {
  const used = charge.credits;
  const reservations = charge.reservations ?? [{ operationId: chatOperation(charge.id), amount: used }];
  const outcomes = await Promise.all(
    closings(reservations, used).map(async ({ operationId, amount }) => {
      try {
        const settled = await deps.credits.settle({
          tenantId: charge.tenantId,
          operationId,
          used: amount,
          description,
        });
        if (settled.released && amount > 0) {
          deps.logger.warn(
            { message_id: charge.id, operation_id: operationId, credits: amount },
            'chat reservation had expired; the round was not charged',
          );
        }
        return true;
      } catch (error) {
        if (error instanceof DomainError && error.code === 'not_found' && !charge.reservations) {
          // A reply stored before chats reserved: charge its cost the way it was charged then.
          return chargeWithoutReservation(deps, charge, used, description);
        }
        if (!retryable(error)) {
          deps.logger.error({ err: error, message_id: charge.id, credits: amount }, 'chat settle refused');
          return true;
        }
        deps.logger.warn({ err: error, message_id: charge.id, credits: amount }, 'chat settle failed; will retry');
        return false;
      }
    }),
  );
  return outcomes.every(Boolean);
}

async function chargeWithoutReservation(
  deps: Pick<UseCaseDeps, 'credits' | 'logger'>,
  charge: PendingCharge,
  used: number,
  description: string,
): Promise<boolean> {
  try {
    await deps.credits.charge({
      tenantId: charge.tenantId,
      amount: used,
      idempotencyKey: chatOperation(charge.id),
      description,
    });
    return true;
  } catch (error) {
    if (retryable(error)) return false;
    deps.logger.error({ err: error, message_id: charge.id, credits: used }, 'chat charge refused');
    return true;
  }
}
