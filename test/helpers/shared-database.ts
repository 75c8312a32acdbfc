import { rmSync } from 'node:fs';
import { AppClient } from './client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from './process.ts';

/** The app the processes of a shared-database test serve, with keys fixed from outside. */
export const SHARED_APP = { applicationId: 'shared', masterKey: 'shared-master', restKey: 'shared-rest', clientKey: '', javascriptKey: '', windowsKey: '', webhookKey: '' };

export interface SharedDatabaseOptions {
  /** More environment for both processes (an admin account, say). */
  readonly env?: Record<string, string>;
  /** Runs once the first process is up, before the second starts (to change the app's settings). */
  readonly beforeSecond?: (first: Started) => Promise<void>;
}

/**
 * Two Basalt processes on one fresh PostgreSQL database, serving SHARED_APP, as a deployment with
 * several servers runs; `run` gets a client of each. Both processes, the database and the data
 * directory are gone afterwards, whatever `run` did.
 */
export async function withTwoProcesses(run: (a: AppClient, b: AppClient) => Promise<void>, options: SharedDatabaseOptions = {}): Promise<void> {
  const db = await tempDatabase();
  const dataDir = tempDir();
  const env = {
    BASALT_DATABASE_URL: db.url,
    BASALT_DATA_DIR: dataDir,
    BASALT_APP_ID: SHARED_APP.applicationId,
    BASALT_MASTER_KEY: SHARED_APP.masterKey,
    BASALT_REST_KEY: SHARED_APP.restKey,
    ...options.env,
  };
  const servers: Started[] = [];
  try {
    servers.push(await start(env));
    await options.beforeSecond?.(servers[0]!);
    servers.push(await start(env));
    const [a, b] = servers.map((server) => new AppClient({ backend: 'postgres', url: server.url }, SHARED_APP));
    await run(a!, b!);
  } finally {
    for (const server of servers) await stop(server);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
