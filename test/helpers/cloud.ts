import { after, before } from 'node:test';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { AppClient } from './client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from './process.ts';
import { ADMIN, type Target } from './targets.ts';
import { newUserApp } from './users.ts';

const FIXTURES = new URL('../fixtures/cloud/', import.meta.url).pathname;

/** A Basalt process of its own with cloud code options, for one backend. */
export interface CloudServer {
  readonly target: Target;
  readonly server: Started;
  /** The --cloud-dir of the server: each app's code is a folder named by its application id. */
  readonly cloudDir: string;
  /** A new app whose cloud code is the fixture folder `test/fixtures/cloud/<fixture>` (linked, so it runs from its real path). */
  appWithCode(fixture: string, settings?: Record<string, unknown>): Promise<AppClient>;
}

/**
 * Starts a server per suite with `--cloud-dir` and small limits (a 3 s time limit per call, a
 * 64 MB heap per worker), so the isolation tests end quickly. `extra` adds environment variables.
 */
export function cloudServer(backend: Target['backend'], extra: Record<string, string> = {}, args: string[] = []): () => CloudServer {
  let started: CloudServer | undefined;
  const cleanup: (() => Promise<void> | void)[] = [];
  before(async () => {
    const dir = tempDir();
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const cloudDir = join(dir, 'cloud');
    mkdirSync(cloudDir);
    const env: Record<string, string> = {
      BASALT_DATA_DIR: join(dir, 'data'),
      BASALT_ADMIN_EMAIL: ADMIN.email,
      BASALT_ADMIN_PASSWORD: ADMIN.password,
      BASALT_CLOUD_DIR: cloudDir,
      BASALT_CLOUD_TIMEOUT: '3000',
      BASALT_CLOUD_MEMORY_MB: '64',
      ...extra,
    };
    if (backend === 'postgres') {
      const db = await tempDatabase();
      cleanup.push(() => db.drop());
      env.BASALT_DATABASE_URL = db.url;
    }
    const server = await start(env, args);
    cleanup.unshift(async () => void (await stop(server)));
    const target: Target = { backend, url: server.url };
    started = {
      target,
      server,
      cloudDir,
      async appWithCode(fixture, settings = {}) {
        const app = await newUserApp(target, settings);
        symlinkSync(join(FIXTURES, fixture), join(cloudDir, app.app.applicationId));
        return app;
      },
    };
  });
  after(async () => {
    for (const step of cleanup) await step();
  });
  return () => {
    if (!started) throw new Error('the cloud server starts in the suite before hook');
    return started;
  };
}
