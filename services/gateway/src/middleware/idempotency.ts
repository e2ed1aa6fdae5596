import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import {
  AnswerLostError,
  ConflictError,
  ValidationError,
  isDuplicateKeyError,
  pruneInBatches,
  type Connection,
  type SecretBox,
} from '@agentplatform/service-kit';
import type { Caller } from '../http/route.js';

interface StoredResponse {
  /** `<tenant>:<caller>:<Idempotency-Key>`: the caller is the user id or the API key id. */
  _id: string;
  fingerprint: string;
  /** `lost`: the request failed with its answer lost (AnswerLostError): it may have been performed. */
  state: 'running' | 'done' | 'lost';
  status?: number;
  /** The response body as JSON, sealed with the SecretBox: it may carry a new API key or signing secret. */
  body_sealed?: string;
  /** Plaintext bodies of older releases; removed on start (their keys never match the per-caller ids). */
  body?: unknown;
  created_at: Date;
  locked_until?: Date;
}

interface IdempotencyOptions {
  ttlHours: number;
  /** Seals stored responses (DATA_ENCRYPTION_KEY). */
  box: SecretBox;
  /** A `running` record older than this belonged to a replica that died mid-request. */
  lockMs?: number;
}

const KEY = /^[\x21-\x7e]{1,255}$/;

interface OnceOptions {
  /**
   * The request passes the key to a backend that performs it once per key (the credit ledger), so
   * after a lost answer it is run again and gets the first outcome. Otherwise a retry after a lost
   * answer is refused (409), since running it again might perform it twice.
   */
  rerunAfterLostAnswer?: boolean;
}

const LOST_ON_RETRY =
  'The first request with this Idempotency-Key may have been performed, but its answer was lost; it is not ' +
  'performed again under this key. Check whether it took effect before sending it under a new key';

interface IdempotentAnswer {
  status: number;
  body: unknown;
  /** The stored answer of an earlier request with the key. */
  replayed: boolean;
}

/** Canonical JSON: object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The route path without its version prefix, so /api/v1 and /v1 share keys. */
function apiPath(path: string): string {
  return path.replace(/^\/(api\/)?v1(?=\/)/, '');
}

/** Who sent a request, for scoping keys: the API key for an API key, else the user. */
function principal(caller: Caller): string {
  if (caller.kind === 'user') return caller.userId;
  // Never fall back to the creator's id: the key would then share the user's records.
  if (!caller.apiKeyId) throw new Error('an API key caller without a key id');
  return caller.apiKeyId;
}

/** What a sealed body is bound to: its own record, so it cannot be replayed under another key. */
function sealContext(id: string): string {
  return `idempotency:${id}:body`;
}

/**
 * `Idempotency-Key` with Stripe's semantics (docs/design.md section 3), stored in the gateway's
 * database so every replica sees it: the first successful response for a key is kept for 24 h per
 * caller (tenant and user or API key: the same key from another caller is another key) and
 * replayed for a retry of the same request; the key with a different request is 409; a retry
 * while the first is still running is 409. A failed request releases its key, so it can be
 * retried once the cause is fixed, except one whose answer was lost (a deadline, a broken
 * connection: AnswerLostError), which the backend may have performed: its key is kept, the 503
 * says so, and a retry is never performed twice (docs/api-guide.md, "Idempotency-Key"). Stored
 * bodies are encrypted, whatever the route: any of them may carry a secret, and sealing them all
 * leaves no route to forget.
 */
export class IdempotencyStore {
  private readonly lockMs: number;

  constructor(
    private readonly connection: Connection,
    private readonly options: IdempotencyOptions,
  ) {
    this.lockMs = options.lockMs ?? 60_000;
  }

  // Through mongoose's collection, so its calls count in mongo_commands_total.
  private get collection() {
    return this.connection.collection<StoredResponse>('idempotency_keys');
  }

  /**
   * Deletes the records older than the TTL, oldest first, in batches by the `created_at` index.
   * Its TTL does this on MongoDB; the local stand-in never expires documents.
   */
  async prune(now: Date, batchSize: number): Promise<number> {
    const cutoff = new Date(now.getTime() - this.options.ttlHours * 3600_000);
    return pruneInBatches(this.collection, { created_at: { $lt: cutoff } }, { sort: { created_at: 1 }, batchSize });
  }

  async init(): Promise<void> {
    await this.collection.createIndex({ created_at: 1 }, { expireAfterSeconds: this.options.ttlHours * 3600 });
    // Responses older releases stored in plaintext, under per-tenant keys no request looks up now.
    await this.collection.deleteMany({ body: { $exists: true } });
    // A keyring that cannot open what is stored (a wrong or missing key) fails here, at start,
    // rather than on every replay.
    const sample = await this.collection.findOne({ body_sealed: { $exists: true } }, { sort: { created_at: -1 } });
    if (sample?.body_sealed) {
      try {
        this.options.box.open(sample.body_sealed, sealContext(sample._id));
      } catch (error) {
        throw new Error(`stored Idempotency-Key responses: ${(error as Error).message}`);
      }
    }
  }

  /** The `guards.idempotency` of mountRoutes. */
  readonly handle = async (
    ctx: Context,
    caller: Caller | undefined,
    run: () => Promise<void>,
    options: OnceOptions = {},
  ): Promise<void> => {
    // Public routes have no tenant to scope keys by.
    if (!caller) return run();
    const request = `${ctx.method} ${apiPath(ctx.path)}?${ctx.querystring}\n${canonical((ctx.request as { body?: unknown }).body ?? null)}`;
    const answer = await this.once(
      caller,
      ctx.get('idempotency-key'),
      request,
      async () => {
        await run();
        return { status: ctx.status, body: ctx.body };
      },
      options,
    );
    if (answer.replayed) {
      ctx.status = answer.status;
      ctx.body = answer.body;
      ctx.set('Idempotent-Replayed', 'true');
    }
  };

  /**
   * Runs `run` once for a caller's key: a retry of the same `request` (any text that identifies
   * it) replays the stored answer instead, another request under the key is a conflict. What the
   * REST routes and the MCP tools (`tools/call` with an Idempotency-Key header) share.
   */
  readonly once = async (
    caller: Caller,
    key: string,
    request: string,
    run: () => Promise<{ status: number; body: unknown }>,
    options: OnceOptions = {},
  ): Promise<IdempotentAnswer> => {
    if (!KEY.test(key)) throw ValidationError.field('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
    const id = `${caller.tenantId}:${principal(caller)}:${key}`;
    const fingerprint = createHash('sha256').update(request).digest('hex');

    const replay = await this.claim(id, fingerprint, options);
    if (replay) {
      const body =
        replay.body_sealed === undefined
          ? null
          : JSON.parse(this.options.box.open(replay.body_sealed, sealContext(id)));
      return { status: replay.status ?? 200, body, replayed: true };
    }
    let answer: { status: number; body: unknown };
    try {
      answer = await run();
    } catch (error) {
      if (!(error instanceof AnswerLostError)) {
        await this.collection.deleteOne({ _id: id, state: 'running' }).catch(() => undefined);
        throw error;
      }
      // The backend may have performed it: keep the key, so that a retry is not performed twice.
      await this.collection
        .updateOne({ _id: id, state: 'running' }, { $set: { state: 'lost' }, $unset: { locked_until: '' } })
        .catch(() => undefined);
      throw new AnswerLostError(
        `${error.message.replace(/; please retry$/, '')}. The request may have been performed: retrying it with ` +
          'the same Idempotency-Key is safe, it is never performed twice',
        error.retryAfter ?? 2,
      );
    }
    await this.collection.updateOne(
      { _id: id },
      {
        $set: {
          state: 'done',
          status: answer.status,
          body_sealed: this.options.box.seal(JSON.stringify(answer.body ?? null), sealContext(id)),
        },
        $unset: { locked_until: '' },
      },
    );
    return { ...answer, replayed: false };
  };

  /** Claims the key for this request, or returns the stored response to replay. */
  private async claim(id: string, fingerprint: string, options: OnceOptions): Promise<StoredResponse | undefined> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const now = new Date();
      try {
        await this.collection.insertOne({
          _id: id,
          fingerprint,
          state: 'running',
          created_at: now,
          locked_until: new Date(now.getTime() + this.lockMs),
        });
        return undefined;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const existing = await this.collection.findOne({ _id: id });
      if (!existing) continue; // expired or released in between: claim again
      if (existing.fingerprint !== fingerprint) {
        throw new ConflictError('This Idempotency-Key was already used with a different request');
      }
      if (existing.state === 'done') return existing;
      if (existing.state === 'lost') {
        if (!options.rerunAfterLostAnswer) throw new ConflictError(LOST_ON_RETRY);
        const retaken = await this.collection.updateOne(
          { _id: id, state: 'lost' },
          { $set: { state: 'running', locked_until: new Date(now.getTime() + this.lockMs) } },
        );
        if (retaken.modifiedCount === 1) return undefined;
        continue;
      }
      if (existing.locked_until && existing.locked_until > now) {
        throw new ConflictError('A request with this Idempotency-Key is still being processed');
      }
      // The replica that held it died: take it over, unless another retry just did.
      const taken = await this.collection.updateOne(
        { _id: id, state: 'running', locked_until: existing.locked_until },
        { $set: { locked_until: new Date(now.getTime() + this.lockMs) } },
      );
      if (taken.modifiedCount === 1) return undefined;
    }
    throw new ConflictError('A request with this Idempotency-Key is still being processed');
  }
}
