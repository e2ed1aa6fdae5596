import { importJWK, type KeyLike } from 'jose';
import { UnauthorizedError, type Logger } from '@agentplatform/service-kit';
import type { Backends } from './backends.js';

interface KeySet {
  keys: Map<string, KeyLike | Uint8Array>;
  issuer: string;
  audience: string;
  fetchedAt: number;
}

/**
 * identity's public signing keys, fetched over gRPC and kept in memory so access tokens are
 * verified without a call per request. A token signed with a key we do not know yet (a rotation)
 * triggers a refetch, at most once per cool-down so forged `kid`s cannot flood identity. A
 * withdrawn key is dropped when identity announces it, not when the cache would expire.
 */
export class JwksCache {
  private current?: KeySet;
  private loading?: Promise<KeySet>;
  /** Keys identity announced as withdrawn: never trusted again, even by a refetch in flight. */
  private readonly withdrawn = new Set<string>();

  constructor(
    private readonly backends: Pick<Backends, 'identity'>,
    private readonly logger: Logger,
    private readonly options = { maxAgeMs: 10 * 60_000, cooldownMs: 10_000 },
  ) {}

  /** Stops trusting a key at once (identity's `access.signing_key.withdrawn`). */
  withdraw(kid: string): void {
    this.withdrawn.add(kid);
    this.current?.keys.delete(kid);
  }

  async settings(): Promise<{ issuer: string; audience: string }> {
    const set = await this.fresh();
    return { issuer: set.issuer, audience: set.audience };
  }

  async key(kid: string | undefined): Promise<KeyLike | Uint8Array> {
    if (!kid) throw new UnauthorizedError('Access token has no key id');
    let set = await this.fresh();
    if (!set.keys.has(kid) && Date.now() - set.fetchedAt > this.options.cooldownMs) set = await this.load();
    const key = set.keys.get(kid);
    if (!key) throw new UnauthorizedError('Access token signed with an unknown key');
    return key;
  }

  private async fresh(): Promise<KeySet> {
    if (this.current && Date.now() - this.current.fetchedAt < this.options.maxAgeMs) return this.current;
    return this.load();
  }

  private load(): Promise<KeySet> {
    this.loading ??= (async () => {
      try {
        const answer = await this.backends.identity.getJwks({});
        const keys = new Map<string, KeyLike | Uint8Array>();
        for (const jwk of answer.keys) {
          if (this.withdrawn.has(jwk.kid)) continue;
          const { kid, alg, use: _use, y, ...material } = jwk;
          keys.set(kid, await importJWK({ ...material, ...(y ? { y } : {}), kid, alg }, alg));
        }
        this.current = { keys, issuer: answer.issuer, audience: answer.audience, fetchedAt: Date.now() };
        this.logger.debug({ kids: [...keys.keys()] }, 'loaded signing keys');
        return this.current;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }
}
