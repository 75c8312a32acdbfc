/**
 * The system namespace's port: operator accounts, apps (with their keys and settings) and
 * collaborators, as src/apps reads and writes them. sql-system.ts implements it over the system
 * tables (`basalt.db` on SQLite, schema `basalt` on PostgreSQL); src/apps knows no SQL.
 */
export interface SystemStore {
  readonly accounts: AccountRows;
  readonly apps: AppRows;
}

/** An operator account: it owns apps and authenticates `/1/apps` (spec 4.12, 5). */
export interface SystemAccount {
  readonly id: string;
  /** Lower case: the caller folds it before writing or looking it up. */
  readonly email: string;
  readonly accountKey: string;
}

export interface AccountRows {
  count(): Promise<number>;
  insert(account: SystemAccount, passwordHash: string, createdAt: string): Promise<void>;
  setPasswordHash(accountId: string, passwordHash: string): Promise<void>;
  /** The account of this email (compared as given), with its password hash. */
  byEmail(email: string): Promise<{ account: SystemAccount; passwordHash: string } | null>;
  /** The account holding this key; the caller still compares the key in constant time. */
  byAccountKey(accountKey: string): Promise<SystemAccount | null>;
}

/** An app as stored: keys and settings as they were written (src/apps adds the default settings). */
export interface SystemApp {
  readonly applicationId: string;
  readonly appName: string;
  readonly namespace: string;
  readonly ownerId: string | null;
  readonly keys: Readonly<Record<string, string>>;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface AppRows {
  find(applicationId: string): Promise<SystemApp | null>;
  /**
   * Every app in creation order (ties by id); with an account, only those it owns or is a
   * collaborator of.
   */
  list(accountId?: string): Promise<SystemApp[]>;
  /** Fails (with the database's error) when the application id or namespace is taken. */
  insert(app: SystemApp): Promise<void>;
  update(applicationId: string, change: Pick<SystemApp, 'appName' | 'keys' | 'settings' | 'updatedAt'>): Promise<void>;
  count(): Promise<number>;
}
