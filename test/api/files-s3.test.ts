import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { newApp } from '../helpers/client.ts';
import { fileScenarios } from '../helpers/file-scenarios.ts';
import { fileListScenarios } from '../helpers/file-list-scenarios.ts';
import { s3Target, upload, type FileTarget } from '../helpers/files.ts';
import { freePort, run, start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { TestS3 } from '../helpers/s3.ts';
import { ADMIN } from '../helpers/targets.ts';
import { assertError } from '../helpers/users.ts';

/**
 * The file scenarios of files.test.ts with `--files-storage s3`: one Basalt on SQLite and one on
 * PostgreSQL, both keeping files in a bucket of a local S3-compatible server (s3rver), under a
 * key prefix, through the AWS SDK.
 */

const PREFIX = 'tenant-a/';

describe('files on S3', () => {
  let s3: TestS3;
  let database: { url: string; drop: () => Promise<void> };
  const servers: Started[] = [];
  const dataDirs = [tempDir(), tempDir()];
  const targets = new Map<string, FileTarget>();

  before(async () => {
    s3 = await TestS3.start();
    database = await tempDatabase();
    const env = { ...s3.env(PREFIX), BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password };
    const sqlite = await start({ ...env, BASALT_DATA_DIR: dataDirs[0]! });
    servers.push(sqlite);
    const postgres = await start({ ...env, BASALT_DATA_DIR: dataDirs[1]!, BASALT_DATABASE_URL: database.url });
    servers.push(postgres);
    targets.set('sqlite', s3Target({ backend: 'sqlite', url: sqlite.url }, s3, PREFIX));
    targets.set('postgres', s3Target({ backend: 'postgres', url: postgres.url }, s3, PREFIX));
  });

  after(async () => {
    for (const server of servers) await stop(server);
    await database?.drop();
    await s3?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  for (const backend of ['sqlite', 'postgres'] as const) {
    describe(`[${backend}]`, () => fileScenarios(() => targets.get(backend)!));
    describe(`[${backend}] listing`, () => fileListScenarios(() => targets.get(backend)!));
  }

  it('kept nothing on the local disk', () => {
    for (const dir of dataDirs) assert.equal(existsSync(join(dir, 'files')), false, dir);
  });
});

describe('files on S3: configuration and failures', () => {
  it('refuses to start without a bucket, with half a key pair, or with an unknown storage', async () => {
    const dir = tempDir();
    try {
      const cases: [Record<string, string>, RegExp][] = [
        [{ BASALT_FILES_STORAGE: 's3' }, /--s3-bucket/],
        [{ BASALT_FILES_STORAGE: 's3', BASALT_S3_BUCKET: 'b', BASALT_S3_ACCESS_KEY_ID: 'id' }, /--s3-secret-access-key/],
        [{ BASALT_FILES_STORAGE: 'ftp' }, /disk or s3/],
      ];
      for (const [env, message] of cases) {
        const started = run([], { ...env, BASALT_DATA_DIR: dir, BASALT_HOST: '127.0.0.1', BASALT_PORT: String(await freePort()) });
        assert.equal(await started.exited(), 1, JSON.stringify(env));
        assert.match(started.stderr(), message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 500/130 when the bucket cannot take the file, and logs why', async () => {
    const s3 = await TestS3.start();
    const dir = tempDir();
    const server = await start({ ...s3.env(), BASALT_S3_BUCKET: 'no-such-bucket', BASALT_DATA_DIR: dir, BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password });
    try {
      const app = await newApp({ backend: 'sqlite', url: server.url });
      assertError(await upload(app, 'lost.txt', Buffer.from('lost'), { contentType: 'text/plain' }), 500, 130);
      assert.match(server.stdout() + server.stderr(), /file storage failed to save a file/);
      assert.deepEqual(await s3.keys(''), []);
    } finally {
      await stop(server);
      await s3.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
