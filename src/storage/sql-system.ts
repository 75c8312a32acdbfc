import type { Backend } from '../sql/backend.ts';
import type { Row } from '../sql/driver.ts';
import type { AccountRows, AppRows, SystemAccount, SystemApp, SystemStore } from './system-port.ts';

/**
 * SystemStore over the system tables of the backend (sql/<database>/migrations.ts, system
 * version 1): `accounts`, `apps` (keys and settings as JSON text) and `collaborators`.
 */
export class SqlSystemStore implements SystemStore {
  readonly accounts: AccountRows;
  readonly apps: AppRows;

  constructor(backend: Backend) {
    this.accounts = new SqlAccountRows(backend);
    this.apps = new SqlAppRows(backend);
  }
}

class SqlAccountRows implements AccountRows {
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

  async insert(account: SystemAccount, passwordHash: string, createdAt: string): Promise<void> {
    const d = this.db.dialect;
    await this.db.run(
      `INSERT INTO ${this.table} ("id", "email", "passwordHash", "accountKey", "createdAt") VALUES (${d.placeholder(1)}, ${d.placeholder(2)}, ${d.placeholder(3)}, ${d.placeholder(4)}, ${d.placeholder(5)})`,
      [account.id, account.email, passwordHash, account.accountKey, createdAt],
    );
  }

  async setPasswordHash(accountId: string, passwordHash: string): Promise<void> {
    const d = this.db.dialect;
    await this.db.run(`UPDATE ${this.table} SET "passwordHash" = ${d.placeholder(1)} WHERE "id" = ${d.placeholder(2)}`, [passwordHash, accountId]);
  }

  async byEmail(email: string): Promise<{ account: SystemAccount; passwordHash: string } | null> {
    const d = this.db.dialect;
    const rows = await this.db.all(`SELECT * FROM ${this.table} WHERE "email" = ${d.placeholder(1)}`, [email]);
    const row = rows[0];
    return row ? { account: toAccount(row), passwordHash: String(row.passwordHash) } : null;
  }

  async byAccountKey(accountKey: string): Promise<SystemAccount | null> {
    const d = this.db.dialect;
    const rows = await this.db.all(`SELECT "id", "email", "accountKey" FROM ${this.table} WHERE "accountKey" = ${d.placeholder(1)}`, [accountKey]);
    return rows[0] ? toAccount(rows[0]) : null;
  }
}

class SqlAppRows implements AppRows {
  constructor(private readonly backend: Backend) {}

  private get db() {
    return this.backend.system;
  }

  private table(name: string): string {
    return this.backend.systemTable(name);
  }

  async find(applicationId: string): Promise<SystemApp | null> {
    const d = this.db.dialect;
    const rows = await this.db.all(`SELECT * FROM ${this.table('apps')} WHERE "applicationId" = ${d.placeholder(1)}`, [applicationId]);
    return rows[0] ? toApp(rows[0]) : null;
  }

  async list(accountId?: string): Promise<SystemApp[]> {
    const d = this.db.dialect;
    const rows = accountId
      ? await this.db.all(
          `SELECT a.* FROM ${this.table('apps')} a WHERE a."ownerId" = ${d.placeholder(1)} OR EXISTS (SELECT 1 FROM ${this.table('collaborators')} c WHERE c."applicationId" = a."applicationId" AND c."accountId" = ${d.placeholder(2)}) ORDER BY a."createdAt", a."applicationId"`,
          [accountId, accountId],
        )
      : await this.db.all(`SELECT * FROM ${this.table('apps')} ORDER BY "createdAt", "applicationId"`);
    return rows.map(toApp);
  }

  async insert(app: SystemApp): Promise<void> {
    const d = this.db.dialect;
    const placeholders = Array.from({ length: 8 }, (_, i) => d.placeholder(i + 1)).join(', ');
    await this.db.run(
      `INSERT INTO ${this.table('apps')} ("applicationId", "namespace", "ownerId", "appName", "keys", "settings", "createdAt", "updatedAt") VALUES (${placeholders})`,
      [app.applicationId, app.namespace, app.ownerId, app.appName, JSON.stringify(app.keys), JSON.stringify(app.settings), app.createdAt, app.updatedAt],
    );
  }

  async update(applicationId: string, change: Pick<SystemApp, 'appName' | 'keys' | 'settings' | 'updatedAt'>): Promise<void> {
    const d = this.db.dialect;
    await this.db.run(
      `UPDATE ${this.table('apps')} SET "appName" = ${d.placeholder(1)}, "keys" = ${d.placeholder(2)}, "settings" = ${d.placeholder(3)}, "updatedAt" = ${d.placeholder(4)} WHERE "applicationId" = ${d.placeholder(5)}`,
      [change.appName, JSON.stringify(change.keys), JSON.stringify(change.settings), change.updatedAt, applicationId],
    );
  }

  async count(): Promise<number> {
    const rows = await this.db.all(`SELECT count(*) AS "n" FROM ${this.table('apps')}`);
    return Number(rows[0]?.n ?? 0);
  }
}

function toAccount(row: Row): SystemAccount {
  return { id: String(row.id), email: String(row.email), accountKey: String(row.accountKey) };
}

function toApp(row: Row): SystemApp {
  return {
    applicationId: String(row.applicationId),
    appName: String(row.appName),
    namespace: String(row.namespace),
    ownerId: row.ownerId == null ? null : String(row.ownerId),
    keys: JSON.parse(String(row.keys)) as Record<string, string>,
    settings: JSON.parse(String(row.settings)) as Record<string, unknown>,
    createdAt: String(row.createdAt),
    updatedAt: String(row.updatedAt),
  };
}
