import type { AppNamespace } from '../sql/namespace.ts';
import type { WriteStep } from './port.ts';

export type TokenKind = 'verify' | 'reset';

/** An emailed link's token as stored: its hash, whom it is for, and until when (ms since epoch). */
export interface TokenRecord {
  readonly hash: string;
  readonly kind: TokenKind;
  readonly userId: string;
  /** The address the link was sent to: a later change of address makes the link worthless. */
  readonly email: string;
  readonly expiresAt: number;
}

/** The single-use tokens of emailed links, in the app's `_Token` table. */
export interface TokenStore {
  put(record: TokenRecord): Promise<void>;
  /** The same row as a step of a unit of work: the link's token is stored with the mail that carries it. */
  putStep(record: TokenRecord): WriteStep;
  /** Removes expired tokens (called before a new one is written, so the table stays small without a timer). */
  sweepExpired(now: number): Promise<void>;
  /** Removes and returns the token if it is of this kind and unexpired, in one statement: two clicks cannot both use it. */
  take(hash: string, kind: TokenKind, now: number): Promise<TokenRecord | null>;
  /** Reads without using it (the reset form is shown before the new password is sent). */
  peek(hash: string, kind: TokenKind, now: number): Promise<TokenRecord | null>;
  /** Forgets every token of this kind of a user (after one of them was used). */
  dropAll(userId: string, kind: TokenKind): Promise<void>;
}

export class SqlTokenStore implements TokenStore {
  constructor(private readonly ns: AppNamespace) {}

  private get table(): string {
    return this.ns.table('_Token');
  }

  async put(record: TokenRecord): Promise<void> {
    await this.sweepExpired(Date.now());
    await this.putStep(record)(this.ns.driver);
  }

  putStep(record: TokenRecord): WriteStep {
    const d = this.ns.driver.dialect;
    const sql = `INSERT INTO ${this.table} ("hash", "kind", "userId", "email", "expiresAt") VALUES (${[1, 2, 3, 4, 5].map((i) => d.placeholder(i)).join(', ')})`;
    return async (tx) => {
      await tx.run(sql, [record.hash, record.kind, record.userId, record.email, record.expiresAt]);
    };
  }

  async sweepExpired(now: number): Promise<void> {
    // Outside the unit of work that writes a new token: concurrent sign-ups would otherwise wait
    // on each other's row locks of the same expired rows.
    await this.ns.driver.run(`DELETE FROM ${this.table} WHERE "expiresAt" < ${this.ns.driver.dialect.placeholder(1)}`, [now]);
  }

  async take(hash: string, kind: TokenKind, now: number): Promise<TokenRecord | null> {
    const d = this.ns.driver.dialect;
    const rows = await this.ns.driver.all(
      `DELETE FROM ${this.table} WHERE "hash" = ${d.placeholder(1)} AND "kind" = ${d.placeholder(2)} RETURNING "hash", "kind", "userId", "email", "expiresAt"`,
      [hash, kind],
    );
    const record = rows[0] ? toRecord(rows[0]) : null;
    return record && record.expiresAt > now ? record : null;
  }

  async peek(hash: string, kind: TokenKind, now: number): Promise<TokenRecord | null> {
    const d = this.ns.driver.dialect;
    const rows = await this.ns.driver.all(`SELECT "hash", "kind", "userId", "email", "expiresAt" FROM ${this.table} WHERE "hash" = ${d.placeholder(1)} AND "kind" = ${d.placeholder(2)}`, [hash, kind]);
    const record = rows[0] ? toRecord(rows[0]) : null;
    return record && record.expiresAt > now ? record : null;
  }

  async dropAll(userId: string, kind: TokenKind): Promise<void> {
    const d = this.ns.driver.dialect;
    await this.ns.driver.run(`DELETE FROM ${this.table} WHERE "userId" = ${d.placeholder(1)} AND "kind" = ${d.placeholder(2)}`, [userId, kind]);
  }
}

function toRecord(row: Record<string, unknown>): TokenRecord {
  return { hash: String(row.hash), kind: row.kind as TokenKind, userId: String(row.userId), email: String(row.email), expiresAt: Number(row.expiresAt) };
}
