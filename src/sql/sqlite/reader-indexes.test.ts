import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDriver } from './driver.ts';
import { AppNamespace } from '../namespace.ts';
import { SqlSchemaStore } from '../../storage/sql-schema-store.ts';
import { addReaderIndexes } from '../reader-indexes.ts';
import type { ClassSchema } from '../../schema/types.ts';
import type { DdlStep, IndexKey } from '../../storage/port.ts';

const score: IndexKey = { field: { kind: 'doc', path: ['score'] }, as: 'number', descending: true };
const name: IndexKey = { field: { kind: 'doc', path: ['name'] }, as: 'text', descending: false };
const READER_KEY = `(CASE WHEN instr("_rperm", ',') = 0 THEN "_rperm" ELSE '' END)`;

/**
 * SQLite's reader indexes (docs/architecture.md, "Reader indexes"): beside each schema index over
 * expressions whose first key is a field read as its type, the same keys led by the reader key,
 * once the class holds a row anyone may not read.
 */
describe('reader indexes beside schema indexes over expressions on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-readers-'));
  let driver: SqliteDriver;
  let store: SqlSchemaStore;

  const definitions = async (): Promise<Record<string, string>> => {
    const rows = await driver.all(`SELECT "name", "sql" FROM sqlite_master WHERE "type" = 'index' AND "tbl_name" = 'Item' AND "sql" IS NOT NULL ORDER BY "name"`);
    return Object.fromEntries(rows.map((row) => [String(row.name), String(row.sql)]));
  };
  const readersOnRecord = async () => {
    const rows = await driver.all(`SELECT "schema" FROM "_SCHEMA" WHERE "className" = 'Item'`);
    return (JSON.parse(String(rows[0]!.schema)) as ClassSchema).readerIndexes;
  };
  const change = (indexes: ClassSchema['indexes'], steps: DdlStep[]) => store.change('Item', (current) => ({ ...current!, indexes }), () => steps);

  before(async () => {
    driver = new SqliteDriver(join(dir, 'app.db'));
    await driver.run(`CREATE TABLE "_SCHEMA" ("className" TEXT PRIMARY KEY, "schema" TEXT NOT NULL)`);
    store = new SqlSchemaStore(new AppNamespace(driver, null));
    const fields = { score: { type: 'Number' }, name: { type: 'String' }, tags: { type: 'Array' } } as const;
    await store.change('Item', () => ({ className: 'Item', fields, classLevelPermissions: {}, indexes: {} }));
  });

  after(() => {
    driver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('none while every row is one anyone may read; made with the mark of a row anyone may not, recorded, and dropped with it', async () => {
    const plain = await change({ byScore: { score: -1, name: 1 } }, [{ kind: 'createIndex', name: 'byScore', keys: [score, name] }]);
    assert.deepEqual([plain?.readerIndexes, plain?.privateRows], [undefined, undefined]);
    assert.deepEqual(Object.keys(await definitions()), ['Item_createdAt', 'Item_idx:byScore']);
    const made = await store.change('Item', (current) => ({ ...current! }), () => [{ kind: 'privateRows' }]);
    assert.deepEqual([made?.readerIndexes, made?.privateRows], [['byScore'], true]);
    const keys = `json_extract("data", '$.score') DESC, json_extract("data", '$.name') ASC, "objectId", "_rperm"`;
    assert.deepEqual(await definitions(), {
      'Item_idx:byScore': `CREATE INDEX "Item_idx:byScore" ON "Item" (${keys})`,
      'Item_rdr:byScore': `CREATE INDEX "Item_rdr:byScore" ON "Item" (${READER_KEY}, ${keys})`,
      Item_createdAt: `CREATE INDEX "Item_createdAt" ON "Item" ("createdAt" DESC, "objectId", "_rperm")`,
    });
    const dropped = await change({}, [{ kind: 'dropIndex', name: 'byScore' }]);
    assert.equal(dropped?.readerIndexes, undefined);
    assert.deepEqual(Object.keys(await definitions()), ['Item_createdAt']);
  });

  it('made with a schema index where the class holds a row anyone may not read, which marks it', async () => {
    const fields = { score: { type: 'Number' } } as const;
    await store.change('Owned', () => ({ className: 'Owned', fields, classLevelPermissions: {}, indexes: {} }));
    await driver.run(`INSERT INTO "Owned" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data") VALUES ('o1', 'a', 'a', '["u1"]', '[]', '{"score":1}')`);
    const made = await store.change('Owned', (current) => ({ ...current!, indexes: { byScore: { score: -1 } } }), () => [{ kind: 'createIndex', name: 'byScore', keys: [score] }]);
    assert.deepEqual([made?.readerIndexes, made?.privateRows], [['byScore'], true]);
    const rows = await driver.all(`SELECT "name" FROM sqlite_master WHERE "type" = 'index' AND "tbl_name" = 'Owned' AND "name" LIKE '%_rdr:%'`);
    assert.deepEqual(rows.map((row) => row.name), ['Owned_rdr:byScore']);
  });

  it('an automatic index built without its reader index gets it when recorded, where a row anyone may not read is there', async () => {
    const fields = { name: { type: 'String' } } as const;
    await store.change('Later', () => ({ className: 'Later', fields, classLevelPermissions: {}, indexes: {} }));
    await driver.run(`INSERT INTO "Later" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data") VALUES ('l1', 'a', 'a', '["u1"]', '[]', '{"name":"x"}')`);
    const built = await store.buildIndexOnline('Later', 'auto_name', [name], false);
    assert.deepEqual(built, { columns: null, reader: false });
    const recorded = await store.change('Later', (current) => ({ ...current!, indexes: { auto_name: { name: 1 } } }), () => [{ kind: 'recordIndex', name: 'auto_name', ...built }]);
    assert.deepEqual([recorded?.readerIndexes, recorded?.privateRows], [['auto_name'], true]);
  });

  it('not made beside a unique index, nor one led by a field of no fixed type or a built-in column', async () => {
    const tags: IndexKey = { field: { kind: 'doc', path: ['tags'], untyped: true }, as: 'json', descending: false };
    const created: IndexKey = { field: { kind: 'column', column: 'createdAt' }, as: 'text', descending: false };
    const made = await change({ byTags: { tags: 1 }, byCreated: { createdAt: 1, score: 1 } }, [
      { kind: 'createIndex', name: 'byTags', keys: [tags] },
      { kind: 'createIndex', name: 'byCreated', keys: [created, score] },
      { kind: 'createIndex', name: 'uniqueName', keys: [name], unique: true },
    ]);
    assert.equal(made?.readerIndexes, undefined);
    assert.deepEqual(Object.keys(await definitions()).filter((index) => index.includes('_rdr:')), []);
    await change({}, [{ kind: 'dropIndex', name: 'byTags' }, { kind: 'dropIndex', name: 'byCreated' }, { kind: 'dropIndex', name: 'uniqueName' }]);
  });

  it('built online with an automatic index, and recorded with it', async () => {
    const built = await store.buildIndexOnline('Item', 'auto_score', [score]);
    assert.deepEqual(built, { columns: null, reader: true });
    assert.equal((await definitions())['Item_rdr:auto_score'], `CREATE INDEX "Item_rdr:auto_score" ON "Item" (${READER_KEY}, json_extract("data", '$.score') DESC, "objectId", "_rperm")`);
    const recorded = await change({ auto_score: { score: -1 } }, [{ kind: 'recordIndex', name: 'auto_score', ...built }]);
    assert.deepEqual([recorded?.readerIndexes, recorded?.storedIndexes, recorded?.publicColumn], [['auto_score'], undefined, undefined]);
    await change({}, [{ kind: 'dropIndex', name: 'auto_score' }]);
    assert.deepEqual(Object.keys(await definitions()), ['Item_createdAt']);
  });

  it('app migration 12 makes the reader index of a schema index made before it, from its own keys', async () => {
    await change({ byName: { name: 1 }, byScore: { score: -1 } }, [
      { kind: 'createIndex', name: 'byName', keys: [name] },
      { kind: 'createIndex', name: 'byScore', keys: [score] },
    ]);
    const made = await definitions();
    // As a version before SQLite's reader indexes left it: none, none on record; the index on
    // score made by hand with another key list, which the reader index follows.
    await driver.run(`DROP INDEX "Item_rdr:byName"`);
    await driver.run(`DROP INDEX "Item_rdr:byScore"`);
    await driver.run(`DROP INDEX "Item_idx:byScore"`);
    await driver.run(`CREATE INDEX "Item_idx:byScore" ON "Item" (json_extract("data", '$.score') DESC, "objectId")`);
    await driver.run(`UPDATE "_SCHEMA" SET "schema" = json_remove("schema", '$.readerIndexes') WHERE "className" = 'Item'`);
    assert.equal(await readersOnRecord(), undefined);
    await driver.transaction((tx) => addReaderIndexes(tx, (table) => `"${table}"`));
    assert.deepEqual(await readersOnRecord(), ['byName', 'byScore']);
    const after_ = await definitions();
    assert.equal(after_['Item_rdr:byName'], made['Item_rdr:byName']);
    assert.equal(after_['Item_rdr:byScore'], `CREATE INDEX "Item_rdr:byScore" ON "Item" (${READER_KEY}, json_extract("data", '$.score') DESC, "objectId")`);
    // Run again, it finds nothing to make.
    await driver.transaction((tx) => addReaderIndexes(tx, (table) => `"${table}"`));
    assert.deepEqual(await definitions(), after_);
  });
});
