import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { buildIndexes } from '@agentplatform/service-kit';
import { LoginThrottleRepository } from './login-throttle.repository.js';

/** Runs against the MongoDB-compatible server the jest global setup starts. */
describe('LoginThrottleRepository', () => {
  let connection: Connection;
  let repository: LoginThrottleRepository;
  const policy = { windowMs: 15 * 60_000 };
  const maxAttempts = 5;

  beforeEach(async () => {
    connection = await mongoose
      .createConnection(process.env.MONGODB_URI!, { dbName: `throttle_${randomBytes(4).toString('hex')}` })
      .asPromise();
    repository = new LoginThrottleRepository(connection);
    await buildIndexes(connection);
  });

  afterEach(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('counts 50 parallel attempts so that at most 5 of them see a number within the budget', async () => {
    const now = new Date();
    const counted = await Promise.all(
      Array.from({ length: 50 }, () => repository.countAttempt('a@example.com', now, policy)),
    );
    const attempts = counted.map((c) => c.attempt);
    // Real MongoDB answers each update with its own count (1 to 50). The stand-in may answer a
    // later count (the document after other increments), never an earlier one: either way no
    // more than 5 attempts are let through to the password check.
    expect(attempts.filter((n) => n <= maxAttempts).length).toBeLessThanOrEqual(5);
    expect(Math.max(...attempts)).toBe(50);
    expect(new Set(attempts).size).toBeGreaterThan(1);
  });

  it('reports an active lock, and starts a new window once the lock has run out', async () => {
    const now = new Date();
    for (let i = 0; i < 5; i++) await repository.countAttempt('b@example.com', now, policy);
    await repository.lock('b@example.com', new Date(now.getTime() + 60_000));
    const locked = await repository.countAttempt('b@example.com', new Date(now.getTime() + 1_000), policy);
    expect(locked.lockedUntil).toEqual(new Date(now.getTime() + 60_000));
    const later = await repository.countAttempt('b@example.com', new Date(now.getTime() + 61_000), policy);
    expect(later).toEqual({ attempt: 1 });
  });
});
