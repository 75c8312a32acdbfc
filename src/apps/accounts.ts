import type { SystemStore } from '../storage/system-port.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { sameSecret } from '../auth/keys.ts';
import { newKey, newObjectId } from '../storage/ids.ts';

export interface Account {
  readonly id: string;
  readonly email: string;
  readonly accountKey: string;
}

/** Operator accounts: they own apps and authenticate `/1/apps` (spec 4.12, 5). */
export class AccountService {
  constructor(private readonly system: SystemStore) {}

  private get rows() {
    return this.system.accounts;
  }

  count(): Promise<number> {
    return this.rows.count();
  }

  async create(email: string, password: string): Promise<Account> {
    const account = { id: newObjectId(), email: email.toLowerCase(), accountKey: newKey() };
    await this.rows.insert(account, await hashPassword(password), new Date().toISOString());
    return account;
  }

  /** Creates the account, or sets its password if it exists. */
  async upsert(email: string, password: string): Promise<{ account: Account; created: boolean }> {
    const existing = await this.byEmail(email);
    if (!existing) return { account: await this.create(email, password), created: true };
    if (!(await verifyPassword(existing.passwordHash, password))) {
      await this.rows.setPasswordHash(existing.account.id, await hashPassword(password));
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
    const account = await this.rows.byAccountKey(key);
    if (!account || !sameSecret(key, account.accountKey)) return null;
    return account;
  }

  private byEmail(email: string): Promise<{ account: Account; passwordHash: string } | null> {
    return this.rows.byEmail(email.toLowerCase());
  }
}
