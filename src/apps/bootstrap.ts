import type { Config } from '../config/schema.ts';
import type { AppRegistry } from './registry.ts';
import type { AccountService } from './accounts.ts';
import type { AppKeys, AppRecord } from './types.ts';
import { newKey } from '../storage/ids.ts';

export interface BootstrapReport {
  /** Set when this start created the admin account: its credentials, shown once. */
  readonly createdAdmin?: { email: string; password: string; accountKey: string };
  /** Set when this start created the default app: its keys, shown once. */
  readonly createdApp?: AppRecord;
  readonly defaultApp: AppRecord | null;
}

const DEFAULT_ADMIN = 'admin@localhost';

/**
 * First start: create an admin account and a default app. Keys and credentials given in the
 * configuration create or update the account and app on every start, so scripts and tests can
 * start a server with known keys.
 */
export async function bootstrap(config: Config, apps: AppRegistry, accounts: AccountService): Promise<BootstrapReport> {
  let createdAdmin: BootstrapReport['createdAdmin'];
  let ownerId: string | null = null;
  if (config.adminEmail && config.adminPassword) {
    const { account, created } = await accounts.upsert(config.adminEmail, config.adminPassword);
    ownerId = account.id;
    if (created) createdAdmin = { email: account.email, password: '(as configured)', accountKey: account.accountKey };
  } else if ((await accounts.count()) === 0) {
    const password = newKey().slice(0, 24);
    const account = await accounts.create(config.adminEmail ?? DEFAULT_ADMIN, password);
    ownerId = account.id;
    createdAdmin = { email: account.email, password, accountKey: account.accountKey };
  }

  const keys: Partial<AppKeys> = {
    ...(config.masterKey ? { masterKey: config.masterKey } : {}),
    ...(config.restKey ? { restKey: config.restKey } : {}),
    ...(config.clientKey ? { clientKey: config.clientKey } : {}),
    ...(config.javascriptKey ? { javascriptKey: config.javascriptKey } : {}),
    ...(config.windowsKey ? { windowsKey: config.windowsKey } : {}),
    ...(config.webhookKey ? { webhookKey: config.webhookKey } : {}),
  };
  if (config.appId) {
    const existing = await apps.find(config.appId);
    if (existing) {
      const changed = Object.entries(keys).some(([name, value]) => existing.keys[name as keyof AppKeys] !== value);
      return { ...(createdAdmin ? { createdAdmin } : {}), defaultApp: changed ? await apps.update(config.appId, { keys }) : existing };
    }
    const created = await apps.create({ appName: config.appName, applicationId: config.appId, ownerId, keys });
    return { ...(createdAdmin ? { createdAdmin } : {}), createdApp: created, defaultApp: created };
  }
  if ((await apps.count()) === 0) {
    const created = await apps.create({ appName: config.appName, applicationId: newKey().slice(0, 20), ownerId, keys });
    return { ...(createdAdmin ? { createdAdmin } : {}), createdApp: created, defaultApp: created };
  }
  return { ...(createdAdmin ? { createdAdmin } : {}), defaultApp: (await apps.list())[0] ?? null };
}
