import bcrypt from 'bcryptjs';

export class PasswordHasher {
  /** Compared against when the account does not exist, so the answer takes as long either way. */
  private dummyHash?: Promise<string>;

  constructor(
    private readonly cost: number,
    /** Told of every bcrypt comparison (a metric: login throttling must bound them). */
    private readonly onCompare: () => void = () => undefined,
  ) {}

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.cost);
  }

  async verify(password: string, hash: string | undefined): Promise<boolean> {
    this.onCompare();
    if (hash === undefined) {
      this.dummyHash ??= bcrypt.hash('not-a-real-password', this.cost);
      await bcrypt.compare(password, await this.dummyHash);
      return false;
    }
    return bcrypt.compare(password, hash);
  }
}
