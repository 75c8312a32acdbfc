import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlDriver } from './driver.ts';
import { AppNamespace } from './namespace.ts';
import { ident } from './params.ts';
import { PostgresDriver } from './postgres/driver.ts';
import { testPostgresUrl } from './postgres/connection.test-helper.ts';
import { SqliteDriver } from './sqlite/driver.ts';
import { applyMigrations, type Migration } from './migrations.ts';
import { APP_MIGRATIONS as POSTGRES_MIGRATIONS } from './postgres/migrations.ts';
import { APP_MIGRATIONS as SQLITE_MIGRATIONS } from './sqlite/migrations.ts';
import { listUpdatedAtIndexes } from './updated-at-index.ts';
import { SqlSchemaStore } from '../storage/sql-schema-store.ts';
import type { ClassSchema } from '../schema/types.ts';

/**
 * App migration 9 (updated-at-index.ts): a class table made when every table got an index on
 * updatedAt keeps it, listed in its schema as `updatedAt_1`; a new table has none.
 */
const targets: { name: string; migrations: readonly Migration[]; open: () => Promise<{ ns: AppNamespace; indexes: (table: string) => Promise<string[]>; done: () => Promise<void> }> }[] = [
  {
    name: 'sqlite',
    migrations: SQLITE_MIGRATIONS,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'basalt-updated-at-'));
      const driver = new SqliteDriver(join(dir, 'app.db'));
      return {
        ns: new AppNamespace(driver, null),
        indexes: async (table) => (await driver.all(`SELECT "name" FROM sqlite_master WHERE "type" = 'index' AND "tbl_name" = ? AND "sql" IS NOT NULL ORDER BY "name"`, [table])).map((row) => String(row.name)),
        done: async () => {
          await driver.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    migrations: POSTGRES_MIGRATIONS,
    async open() {
      const schema = `updated_at_${process.pid}_${Date.now()}`;
      const driver = new PostgresDriver(testPostgresUrl(), 3);
      await driver.run(`CREATE SCHEMA ${ident(schema)}`);
      return {
        ns: new AppNamespace(driver, schema),
        indexes: async (table) => (await driver.all(`SELECT indexname AS "name" FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND indexname NOT LIKE '%pkey' ORDER BY 1`, [schema, table])).map((row) => String(row.name)),
        done: async () => {
          await driver.run(`DROP SCHEMA IF EXISTS ${ident(schema)} CASCADE`);
          await driver.close();
        },
      };
    },
  },
];

const classOf = (className: string, indexes: ClassSchema['indexes'] = {}): ClassSchema => ({ className, fields: { score: { type: 'Number' } }, classLevelPermissions: {}, indexes });

for (const target of targets) {
  describe(`the updatedAt index of older class tables [${target.name}]`, () => {
    let ns: AppNamespace;
    let driver: SqlDriver;
    let store: SqlSchemaStore;
    let indexes: (table: string) => Promise<string[]>;
    let done: () => Promise<void>;

    before(async () => {
      ({ ns, indexes, done } = await target.open());
      driver = ns.driver;
      await driver.run(`CREATE TABLE ${ns.table('_SCHEMA')} ("className" TEXT PRIMARY KEY, "schema" TEXT NOT NULL)`);
      store = new SqlSchemaStore(ns);
      await store.change('Old', () => classOf('Old'));
      await store.change('Both', () => classOf('Both', { byUpdate: { updatedAt: -1 } }));
      await store.change('Fresh', () => classOf('Fresh'));
      // What a table made before had besides: the built-in index on updatedAt.
      for (const className of ['Old', 'Both']) await driver.run(`CREATE INDEX ${ident(`${className}_updatedAt`)} ON ${ns.table(className)} ("updatedAt")`);
    });
    after(() => done());

    it('a new table has no index on updatedAt', async () => {
      assert.deepEqual(await indexes('Fresh'), target.name === 'postgres' ? ['Fresh_createdAt', 'Fresh_rperm'] : ['Fresh_createdAt']);
    });

    it('an older one keeps it as the schema index updatedAt_1, which the schema can then drop; a duplicate goes', async () => {
      // The app migrations of the backend, as an app's first open applies them.
      await driver.transaction((tx) => applyMigrations(tx, target.migrations, (name) => ns.table(name), ns.table('_MIGRATIONS')));
      const schemas = new Map((await store.loadAll()).map((schema) => [schema.className, schema]));
      assert.deepEqual(schemas.get('Old')!.indexes, { updatedAt_1: { updatedAt: 1 } });
      assert.ok((await indexes('Old')).includes('Old_idx:updatedAt_1'));
      assert.ok(!(await indexes('Old')).includes('Old_updatedAt'));
      // The schema already had one on updatedAt: the old index was the same, and is gone.
      assert.deepEqual(schemas.get('Both')!.indexes, { byUpdate: { updatedAt: -1 } });
      assert.deepEqual((await indexes('Both')).filter((name) => name.includes('updatedAt')), []);
      assert.deepEqual(schemas.get('Fresh')!.indexes, {});

      // Run again (a retry after a later step failed), nothing changes.
      await driver.transaction((tx) => listUpdatedAtIndexes(tx, (name) => ns.table(name)));
      assert.deepEqual((await store.loadAll()).find((schema) => schema.className === 'Old')!.indexes, { updatedAt_1: { updatedAt: 1 } });

      await store.change('Old', (current) => ({ ...current!, indexes: {} }), () => [{ kind: 'dropIndex', name: 'updatedAt_1' }]);
      assert.deepEqual((await indexes('Old')).filter((name) => name.includes('updatedAt')), []);
    });
  });
}
