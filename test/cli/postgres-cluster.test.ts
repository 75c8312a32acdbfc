import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { start, stop, tempDatabase, tempDir } from '../helpers/process.ts';
import { http } from '../helpers/client.ts';

const KEYS = { 'X-Svc-Application-Id': 'shared', 'X-Svc-Master-Key': 'mk' };

describe('several processes on one PostgreSQL', () => {
  it('start at once, migrate once, create the app once and serve the same data', async () => {
    const db = await tempDatabase();
    const servers = await Promise.all([1, 2, 3].map(() => start({ BASALT_DATABASE_URL: db.url, BASALT_DATA_DIR: tempDir(), BASALT_APP_ID: 'shared', BASALT_MASTER_KEY: 'mk' })));
    try {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const migrations = await client.query('SELECT "version" FROM basalt."_migrations" ORDER BY "version"');
      assert.deepEqual(migrations.rows.map((row) => row.version), [1]);
      const apps = await client.query('SELECT "applicationId" FROM basalt.apps');
      assert.deepEqual(apps.rows.map((row) => row.applicationId), ['shared']);
      const accounts = await client.query('SELECT count(*)::int AS n FROM basalt.accounts');
      assert.equal(accounts.rows[0].n, 1);
      await client.end();

      const created = await http(`${servers[0]!.url}/1/classes/Shared`, 'POST', { body: { n: 1 }, headers: KEYS });
      assert.equal(created.status, 201);
      for (const server of servers) {
        const read = await http(`${server.url}/1/classes/Shared/${created.body.objectId}`, 'GET', { headers: KEYS });
        assert.equal(read.status, 200);
        assert.equal(read.body.n, 1);
      }
    } finally {
      for (const server of servers) await stop(server);
      await db.drop();
    }
  });

  it('tells every process when a schema changes', async () => {
    const db = await tempDatabase();
    const env = { BASALT_DATABASE_URL: db.url, BASALT_DATA_DIR: tempDir(), BASALT_APP_ID: 'shared', BASALT_MASTER_KEY: 'mk' };
    const a = await start(env);
    const b = await start(env);
    try {
      assert.equal((await http(`${a.url}/1/classes/Item`, 'POST', { body: { size: 1 }, headers: KEYS })).status, 201);
      // B caches the schema: size is a Number.
      const refused = await http(`${b.url}/1/classes/Item`, 'POST', { body: { size: 'large' }, headers: KEYS });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 111);
      // A drops the field; B must learn of it without a restart.
      const dropped = await http(`${a.url}/1/schemas/Item`, 'PUT', { body: { fields: { size: { __op: 'Delete' } } }, headers: KEYS });
      assert.equal(dropped.status, 200);
      let accepted = 0;
      for (let attempt = 0; attempt < 50 && accepted !== 201; attempt++) {
        accepted = (await http(`${b.url}/1/classes/Item`, 'POST', { body: { size: 'large' }, headers: KEYS })).status;
        if (accepted !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(accepted, 201);
      const schema = await http(`${a.url}/1/schemas/Item`, 'GET', { headers: KEYS });
      assert.deepEqual(schema.body.fields.size, { type: 'String' });
    } finally {
      await stop(a);
      await stop(b);
      await db.drop();
    }
  });
});
