import type { Backend } from '../sql/backend.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { sameSecret } from '../auth/keys.ts';
import { newKey, newObjectId } from './ids.ts';

export interface Account {
  readonly id: string;
  readonly email: string;
  readonly accountKey: string;
}

/** Operator accounts: they own apps and authenticate `/1/apps` (spec 4.12, 5). */
export class AccountService {
  constructor(private readonly backend: Backend) {}

  private get db() {
    return this.backend.system;
  }

  private get table(): string {
    return this.backend.systemTable('accounts');
  }

  async count(): Promise<number> {
    const rows = await this.db.all(`SELECT count(*) AS "n" FROM ${this.table}`);
    return Number(rows[0]?.n ?? 0);
  }

  async create(email: string, password: string): Promise<Account> {
    const account = { id: newObjectId(), email: email.toLowerCase(), accountKey: newKey() };
    const d = this.db.dialect;
    await this.db.run(
      `INSERT INTO ${this.table} ("id", "email", "passwordHash", "accountKey", "createdAt") VALUES (${d.placeholder(1)}, ${d.placeholder(2)}, ${d.placeholder(3)}, ${d.placeholder(4)}, ${d.placeholder(5)})`,
      [account.id, account.email, await hashPassword(password), account.accountKey, new Date().toISOString()],
    );
    return account;
  }

  /** Creates the account, or sets its password if it exists. */
  async upsert(email: string, password: string): Promise<{ account: Account; created: boolean }> {
    const existing = await this.byEmail(email);
    if (!existing) return { account: await this.create(email, password), created: true };
    const d = this.db.dialect;
    if (!(await verifyPassword(existing.passwordHash, password))) {
      await this.db.run(`UPDATE ${this.table} SET "passwordHash" = ${d.placeholder(1)} WHERE "id" = ${d.placeholder(2)}`, [await hashPassword(password), existing.account.id]);
    }
    return { account: existing.account, created: false };
  }

  async authenticate(email: string, password: string): Promise<Account | null> {
    const existing = await this.byEmail(email);
    if (!existing) {
      // Hash anyway so that response time does not tell which emails have accounts.
      await hashPassword(password);
      return null;
    }
    return (await verifyPassword(existing.passwordHash, password)) ? existing.account : null;
  }

  async byAccountKey(key: string): Promise<Account | null> {
    const d = this.db.dialect;
    const rows = await this.db.all(`SELECT "id", "email", "accountKey" FROM ${this.table} WHERE "accountKey" = ${d.placeholder(1)}`, [key]);
    const row = rows[0];
    if (!row || !sameSecret(key, String(row.accountKey))) return null;
    return { id: String(row.id), email: String(row.email), accountKey: String(row.accountKey) };
  }

  private async byEmail(email: string): Promise<{ account: Account; passwordHash: string } | null> {
    const d = this.db.dialect;
    const rows = await this.db.all(`SELECT * FROM ${this.table} WHERE "email" = ${d.placeholder(1)}`, [email.toLowerCase()]);
    const row = rows[0];
    if (!row) return null;
    return { account: { id: String(row.id), email: String(row.email), accountKey: String(row.accountKey) }, passwordHash: String(row.passwordHash) };
  }
}
