import { CountMemory } from './count-memory.ts';
import { Errors } from '../errors/index.ts';
import type { BuiltIndex, DdlStep, IndexKey, SchemaStore } from './port.ts';
import type { SqlExecutor } from '../sql/driver.ts';
import { createHash } from 'node:crypto';
import type { ClassSchema, StoredColumn, StoredIndexes } from '../schema/types.ts';
import type { AppNamespace } from '../sql/namespace.ts';
import { ident, PUBLIC_COLUMN, readerIndexName, schemaIndexName, TIE_BREAK } from '../sql/params.ts';
import { textIndexNames } from '../schema/indexes.ts';
import { missingReaderIndexes } from '../sql/reader-indexes.ts';
import { KeptColumns, PUBLIC_READING } from './kept-columns.ts';

export const SCHEMA_TABLE = '_SCHEMA';

/** The stored columns of the class as the schema change's steps leave them, and whether one was added. */
interface StoredState {
  stored: StoredIndexes;
  /** The class table has the column telling whether "*" may read a row, and every stored index carries it. */
  publicColumn: boolean;
  /** The schema indexes with a reader index beside them (those dropped since are left out when saved). */
  readers: Set<string>;
  /** The class holds, or held, a row "*" may not read: its schema indexes get reader indexes. */
  privateRows: boolean;
  added: boolean;
}

/**
 * The column keeping the reading at `path`: "f.<path>" ("f.score", "f.owner.objectId"). No field
 * name holds ".", so it is never a built-in column nor another path's; past PostgreSQL's 63 bytes
 * it keeps a hash.
 */
function storedColumnName(path: readonly string[]): string {
  const name = `f.${path.join('.')}`;
  if (Buffer.byteLength(name) <= 63) return name;
  return `${name.slice(0, 50)}~${createHash('sha256').update(name).digest('hex').slice(0, 10)}`;
}

/** The names of the stored columns some index of `stored` is over. */
function columnNames(stored: StoredIndexes): Set<string> {
  return new Set(Object.values(stored).flatMap((list) => list.map((column) => column.column)));
}

/** The schema as stored: the record of stored columns only when there is one. */
function withStoredIndexes(schema: ClassSchema, { stored, publicColumn, readers, privateRows }: StoredState): ClassSchema {
  const { storedIndexes: _stored, publicColumn: _public, readerIndexes: _readers, privateRows: _private, ...rest } = schema;
  const withStored = Object.keys(stored).length ? { ...rest, storedIndexes: stored } : rest;
  const withPrivate = privateRows ? { ...withStored, privateRows: true as const } : withStored;
  const withPublic = publicColumn ? { ...withPrivate, publicColumn: true as const } : withPrivate;
  const listed = Object.keys(schema.indexes).filter((name) => readers.has(name));
  return listed.length ? { ...withPublic, readerIndexes: listed } : withPublic;
}

/** Class schemas in the app's `_SCHEMA` table, and the DDL that goes with changing them. */
export class SqlSchemaStore implements SchemaStore {
  /** `counts`: the app's remembered counts, forgotten by every change made here. */
  constructor(
    private readonly ns: AppNamespace,
    private readonly counts: CountMemory = new CountMemory(0),
  ) {}

  private get dialect() {
    return this.ns.driver.dialect;
  }

  private get kept(): KeptColumns | null {
    const sql = this.dialect.keptColumns;
    return sql ? new KeptColumns(this.ns, sql) : null;
  }

  async loadAll(): Promise<ClassSchema[]> {
    const rows = await this.ns.driver.all(`SELECT "className", "schema" FROM ${this.ns.table(SCHEMA_TABLE)} ORDER BY "className"`);
    return rows.map((row) => JSON.parse(String(row.schema)) as ClassSchema);
  }

  async load(className: string): Promise<ClassSchema | null> {
    const rows = await this.ns.driver.all(`SELECT "schema" FROM ${this.ns.table(SCHEMA_TABLE)} WHERE "className" = ${this.dialect.placeholder(1)}`, [className]);
    return rows[0] ? (JSON.parse(String(rows[0].schema)) as ClassSchema) : null;
  }

  async has(className: string): Promise<boolean> {
    const rows = await this.ns.driver.all(`SELECT 1 AS "found" FROM ${this.ns.table(SCHEMA_TABLE)} WHERE "className" = ${this.dialect.placeholder(1)}`, [className]);
    return rows.length > 0;
  }

  async change(
    className: string,
    change: (current: ClassSchema | null) => ClassSchema | null,
    ddl: (current: ClassSchema | null, next: ClassSchema) => DdlStep[] = () => [],
  ): Promise<ClassSchema | null> {
    const d = this.dialect;
    const schemaTable = this.ns.table(SCHEMA_TABLE);
    const changed = await this.forgetting(() => this.ns.driver.transaction(async (tx) => {
      const current = await this.lockClass(tx, className);
      const next = change(current);
      if (!next || next === current) return { saved: current, rewritten: false };
      if (!current) await this.createClassTable(tx, className);
      const columns: StoredState = {
        stored: current?.storedIndexes ?? {},
        publicColumn: current?.publicColumn === true,
        readers: new Set(current?.readerIndexes ?? []),
        privateRows: current?.privateRows === true,
        added: false,
      };
      const steps = ddl(current, next);
      // Decided here, not only by the job a private row's write queues: that job may not have run yet.
      if (current && !columns.privateRows && steps.some((step) => step.kind === 'createIndex' || step.kind === 'recordIndex')) {
        columns.privateRows = await this.holdsPrivateRows(tx, className);
      }
      for (const step of steps) await this.runStep(tx, className, step, next, columns);
      if (columns.privateRows) await this.addReaderIndexes(tx, className, next, columns);
      const saved = withStoredIndexes(next, columns);
      const json = JSON.stringify(saved);
      if (current) await tx.run(`UPDATE ${schemaTable} SET "schema" = ${d.placeholder(1)} WHERE "className" = ${d.placeholder(2)}`, [json, className]);
      else await tx.run(`INSERT INTO ${schemaTable} ("className", "schema") VALUES (${d.placeholder(1)}, ${d.placeholder(2)})`, [className, json]);
      return { saved, rewritten: columns.added };
    }));
    // The rewrite left the new columns without statistics and the table without a visibility map.
    if (changed.rewritten) await this.analyze(className);
    return changed.saved;
  }

  /** Drops the class, its table and its join rows; refuses (255) while the class holds objects. */
  async drop(className: string): Promise<void> {
    const d = this.dialect;
    const table = this.ns.table(className);
    await this.forgetting(() => this.ns.driver.transaction(async (tx) => {
      const schema = await this.lockClass(tx, className);
      if (!schema) return;
      // An object written between the count and the drop would vanish with the table, so writers
      // wait until this transaction ends. SQLite's BEGIN IMMEDIATE already keeps them out.
      const lockTable = d.lockTableSql(table);
      if (lockTable) await tx.run(lockTable);
      const rows = await tx.all(`SELECT count(*) AS "n" FROM ${table}`);
      const count = Number(rows[0]?.n ?? 0);
      if (count > 0) throw Errors.classNotEmpty(`Class ${className} is not empty: it holds ${count} object${count === 1 ? '' : 's'}.`);
      // A text index lives partly outside the table (an FTS5 table, a function), which DROP TABLE leaves.
      for (const name of textIndexNames(schema.indexes)) {
        for (const sql of d.dropTextIndex({ className, name }, (object) => this.ns.table(object))) await tx.run(sql);
      }
      await tx.run(`DROP TABLE IF EXISTS ${table}`);
      await this.kept?.dropFunction(tx, className);
      await tx.run(`DELETE FROM ${this.ns.table('_Join')} WHERE "owningClass" = ${d.placeholder(1)}`, [className]);
      await tx.run(`DELETE FROM ${this.ns.table(SCHEMA_TABLE)} WHERE "className" = ${d.placeholder(1)}`, [className]);
    }));
  }

  /** Runs a change of classes, then forgets the remembered counts, whether it committed or not. */
  private async forgetting<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } finally {
      this.counts.written();
    }
  }

  async purge(classNames: readonly string[]): Promise<boolean> {
    const d = this.dialect;
    return this.forgetting(() => this.ns.driver.transaction(async (tx) => {
      let found = false;
      for (const className of classNames) {
        if (!(await this.lockClass(tx, className))) continue;
        found = true;
        const table = this.ns.table(className);
        // A writer between the two deletes could have its object kept and its relation rows
        // deleted, so writers wait until this transaction ends; readers go on and see the class
        // as it was until then (SQLite's BEGIN IMMEDIATE already keeps writers out).
        const lockTable = d.lockTableWritesSql(table);
        if (lockTable) await tx.run(lockTable);
        await tx.run(`DELETE FROM ${table}`);
        await tx.run(`DELETE FROM ${this.ns.table('_Join')} WHERE "owningClass" = ${d.placeholder(1)}`, [className]);
      }
      return found;
    }));
  }

  async countObjects(className: string): Promise<number> {
    const rows = await this.ns.driver.all(`SELECT count(*) AS "n" FROM ${this.ns.table(className)}`);
    return Number(rows[0]?.n ?? 0);
  }

  /** Reads the class's schema row so that no other schema change of the class runs until the transaction ends. */
  private async lockClass(tx: SqlExecutor, className: string): Promise<ClassSchema | null> {
    const d = this.dialect;
    // The row lock cannot cover a class without a row yet: two servers creating the same class at
    // once must not both run CREATE TABLE.
    const unlimited = d.unlimitedStatementsSql();
    if (unlimited) await tx.run(unlimited);
    await this.classLock(tx, className);
    const rows = await tx.all(`SELECT "schema" FROM ${this.ns.table(SCHEMA_TABLE)} WHERE "className" = ${d.placeholder(1)}${d.lockClause}`, [className]);
    return rows[0] ? (JSON.parse(String(rows[0].schema)) as ClassSchema) : null;
  }

  /** Waits, until the transaction ends, for every other schema change of the class (where transactions do not already exclude each other). */
  private async classLock(tx: SqlExecutor, className: string): Promise<void> {
    const lock = this.dialect.transactionLockSql();
    if (lock) await tx.run(lock, [`${this.ns.schema}.${className}`]);
  }

  /**
   * The columns a schema index is built over, where the dialect keeps readings in columns: one per
   * key, each holding exactly the expression the compiler reads the key as (query/fields.ts).
   * Null, and the index stays on expressions, for a unique index, a GeoPoint's (its cell is an
   * expression anyway, and its rows are read for the distance), or a key of no fixed type.
   */
  private storedColumns(keys: readonly IndexKey[], unique: boolean): StoredColumn[] | null {
    if (unique) return null;
    const stored: StoredColumn[] = [];
    for (const key of keys) {
      if (key.latitudeCell || key.field.kind !== 'doc' || key.field.untyped || key.as === 'json') return null;
      const column = storedColumnName(key.field.path);
      if (this.dialect.storedColumn(column, key.field.path, key.as) === null) return null;
      stored.push({ path: key.field.path, as: key.as, column });
    }
    return stored;
  }

  /**
   * Adds the columns no other index made yet, in one statement: each ADD of a stored column
   * rewrites the table. The first also brings the public-read column, which every index over
   * stored columns carries: indexes made before it are made again with it.
   */
  private async addColumns(tx: SqlExecutor, table: string, stored: readonly StoredColumn[], columns: StoredState, next: ClassSchema): Promise<void> {
    const d = this.dialect;
    const existing = columnNames(columns.stored);
    const added = stored.filter((column, i) => !existing.has(column.column) && stored.findIndex((other) => other.column === column.column) === i);
    const definitions = added.map((column) => `ADD COLUMN IF NOT EXISTS ${d.storedColumn(column.column, column.path, column.as)}`);
    const addPublic = !columns.publicColumn && d.publicColumn !== null;
    if (addPublic) definitions.push(`ADD COLUMN IF NOT EXISTS ${d.publicColumn}`);
    if (definitions.length === 0) return;
    await tx.run(`ALTER TABLE ${table} ${definitions.join(', ')}`);
    columns.added = true;
    if (!addPublic) return;
    columns.publicColumn = true;
    for (const [indexName, earlier] of Object.entries(columns.stored)) {
      const descending = Object.values(next.indexes[indexName] ?? {}).map((direction) => direction === -1);
      await this.dropSchemaIndex(tx, next.className, indexName);
      await this.createStoredIndex(tx, table, next.className, indexName, earlier, descending);
      // Made again by addReaderIndexes, where the class has any.
      columns.readers.delete(indexName);
    }
  }

  private async createStoredIndex(tx: SqlExecutor, table: string, className: string, indexName: string, stored: readonly StoredColumn[], descending: readonly boolean[]): Promise<void> {
    const d = this.dialect;
    await tx.run(d.storedIndexSql(table, schemaIndexName(className, indexName), d.storedIndexKeys(stored.map((column) => column.column), descending), false));
  }

  /**
   * Whether the class holds a row "*" may not read. Until one is written, a reader index would
   * serve no page (each user's page reads the rows of "*" alike) and only cost every write an
   * entry; the first such row's write queues the job that makes them (rest/reader-index-job.ts).
   */
  private async holdsPrivateRows(tx: SqlExecutor, className: string): Promise<boolean> {
    const d = this.dialect;
    const params = d.params();
    const anyone = d.where({ kind: 'acl', access: 'read', principals: ['*'] }, params);
    const rows = await tx.all(`SELECT 1 AS "found" FROM ${this.ns.table(className)} WHERE NOT (${anyone}) LIMIT 1`, params.values);
    return rows.length > 0;
  }

  /** Makes the reader indexes the class's schema indexes lack, in the schema change's transaction. */
  private async addReaderIndexes(tx: SqlExecutor, className: string, next: ClassSchema, columns: StoredState): Promise<void> {
    const record = { fields: next.fields, indexes: next.indexes, storedIndexes: columns.stored, readerIndexes: [...columns.readers] };
    for (const { index, sql } of await missingReaderIndexes(tx, this.ns.table(className), className, record, false)) {
      await tx.run(sql);
      columns.readers.add(index);
    }
  }

  async buildReaderIndexesOnline(className: string): Promise<void> {
    const schema = await this.load(className);
    if (!schema) return;
    for (const { index, sql } of await missingReaderIndexes(this.ns.driver, this.ns.table(className), className, schema, true)) {
      await this.dropInvalid(readerIndexName(className, index));
      await this.ns.driver.run(sql);
    }
  }

  /** Drops the index `name` where a failed online build left it INVALID: building it again would find it there. */
  private async dropInvalid(name: string): Promise<void> {
    const d = this.dialect;
    const invalid = d.invalidIndexSql();
    if (invalid && (await this.ns.driver.all(invalid, [this.ns.schema ?? '', name])).length > 0) {
      await this.ns.driver.run(`DROP INDEX${d.onlineIndexKeyword} IF EXISTS ${d.qualifyIndex(this.ns.schema, name)}`);
    }
  }

  private storedIndexNames(className: string, indexName: string): { index: string; reader: string } {
    return { index: schemaIndexName(className, indexName), reader: readerIndexName(className, indexName) };
  }

  /** Drops a schema index and the reader index that may be beside it. */
  private async dropSchemaIndex(tx: SqlExecutor, className: string, indexName: string): Promise<void> {
    const d = this.dialect;
    await tx.run(`DROP INDEX IF EXISTS ${d.qualifyIndex(this.ns.schema, schemaIndexName(className, indexName))}`);
    if (d.readerKey) await tx.run(`DROP INDEX IF EXISTS ${d.qualifyIndex(this.ns.schema, readerIndexName(className, indexName))}`);
  }

  private async createClassTable(tx: SqlExecutor, className: string): Promise<void> {
    const d = this.dialect;
    const table = this.ns.table(className);
    await tx.run(
      `CREATE TABLE IF NOT EXISTS ${table} ("objectId" ${d.keyType} PRIMARY KEY, "createdAt" ${d.keyType} NOT NULL, "updatedAt" ${d.keyType} NOT NULL, "_rperm" ${d.permsType} NOT NULL, "_wperm" ${d.permsType} NOT NULL, "data" ${d.docType} NOT NULL)`,
    );
    // Not updatedAt, which every update changes (sql/updated-at-index.ts): an index on it is
    // made when queries want one (the scan log, automatic indexes).
    await tx.run(`CREATE INDEX IF NOT EXISTS ${ident(this.ns.indexName(className, 'createdAt'))} ON ${table} (${d.createdAtIndexColumns})`);
    const perms = d.permsIndex(this.ns.indexName(className, 'rperm'), table);
    if (perms) await tx.run(perms);
    for (const statement of d.permsSpelling(className, table)) await tx.run(statement);
  }

  /** The column list of an index over the expressions the compiler reads (query/fields.ts). */
  private expressionKeys(indexKeys: readonly IndexKey[], unique: boolean): string[] {
    const d = this.dialect;
    const expr = (key: IndexKey) => (key.latitudeCell ? d.latitudeCell(d.fieldExpr(key.field, 'number')) : d.fieldExpr(key.field, key.as));
    // A built-in column is never null and is sorted with no NULLS clause (SqlCompiler.orderBy):
    // an index with one would be in no order a query asks for.
    const keys = indexKeys.map((key) => (key.field.kind === 'column' ? `${ident(key.field.column)} ${key.descending ? 'DESC' : 'ASC'}` : d.indexExpr(expr(key), key.descending)));
    // Not on a unique index (the columns would take part in uniqueness), nor on a GeoPoint's
    // cell index, whose rows are read anyway for the distance.
    if (!unique && !indexKeys.some((key) => key.latitudeCell)) {
      keys.push(TIE_BREAK);
      if (d.permsInIndexes) keys.push('"_rperm"');
    }
    return keys;
  }

  /**
   * Each step can be run again after a failure of any later one: the columns are added if
   * missing, the backfill changes only rows still different, an INVALID index is dropped.
   */
  async buildIndexOnline(className: string, indexName: string, keys: readonly IndexKey[], withReader = true): Promise<BuiltIndex> {
    const d = this.dialect;
    const table = this.ns.table(className);
    const kept = this.kept;
    const stored = kept ? this.storedColumns(keys, false) : null;
    if (kept && stored) {
      const readings = [...stored, PUBLIC_READING];
      await kept.add(className, readings, (tx) => this.classLock(tx, className));
      await kept.backfill(className, readings);
    }
    const names = this.storedIndexNames(className, indexName);
    for (const built of [names.index, names.reader]) await this.dropInvalid(built);
    let index: string;
    let reader: string | null;
    if (stored) {
      const storedKeys = d.storedIndexKeys(stored.map((column) => column.column), keys.map((key) => key.descending));
      index = d.storedIndexSql(table, names.index, storedKeys, true);
      reader = d.readerIndexSql(table, names.reader, storedKeys, true);
    } else {
      ({ index, reader } = this.expressionIndexSql(table, className, indexName, keys, { unique: false, online: true }));
    }
    const withItsReader = withReader && reader !== null;
    for (const sql of withItsReader ? [index, reader!] : [index]) await this.ns.driver.run(sql);
    await this.analyze(className);
    return { columns: stored, reader: withItsReader };
  }

  /**
   * The statement making a schema index over expressions and, where the dialect puts reader
   * indexes there (`expressionReaderIndexes`), that making its reader index, when the index's
   * first key is a field read as its type (not a unique index's, whose keys a page is never
   * ordered by, nor a GeoPoint's cell); null otherwise.
   */
  private expressionIndexSql(
    table: string,
    className: string,
    indexName: string,
    indexKeys: readonly IndexKey[],
    { unique, online }: { unique: boolean; online: boolean },
  ): { index: string; reader: string | null } {
    const d = this.dialect;
    const keys = this.expressionKeys(indexKeys, unique);
    const names = this.storedIndexNames(className, indexName);
    const index = `CREATE ${unique ? 'UNIQUE ' : ''}INDEX${online ? d.onlineIndexKeyword : ''} IF NOT EXISTS ${ident(names.index)} ON ${table} (${keys.join(', ')})`;
    const first = indexKeys[0];
    const reader = d.expressionReaderIndexes && !unique && first !== undefined && first.field.kind === 'doc' && !first.field.untyped && first.as !== 'json' && !first.latitudeCell;
    return { index, reader: reader ? d.readerIndexSql(table, names.reader, keys, online) : null };
  }

  /**
   * Statistics for the planner, which autovacuum (off on some servers, and otherwise late) may
   * not have gathered, and on PostgreSQL the visibility map an index-only scan needs to skip the
   * rows (a rewrite empties it). Outside any transaction, as VACUUM must be; reads and writes go
   * on. A failure leaves a correct, only slower, table.
   */
  private async analyze(className: string): Promise<void> {
    const sql = this.dialect.afterRewriteSql(this.ns.table(className));
    if (sql) await this.ns.driver.run(sql).catch(() => undefined);
  }

  async indexScans(className: string, indexNames: readonly string[]): Promise<ReadonlyMap<string, number> | null> {
    const sql = this.dialect.indexScansSql();
    if (!sql) return null;
    const rows = await this.ns.driver.all(sql, [this.ns.schema ?? '', className]);
    const byTableName = new Map(rows.map((row) => [String(row.name), Number(row.scans)]));
    const scans = new Map<string, number>();
    for (const name of indexNames) {
      const count = byTableName.get(schemaIndexName(className, name));
      // A user's page reads the reader index instead: both count as the index's use.
      if (count !== undefined) scans.set(name, count + (byTableName.get(readerIndexName(className, name)) ?? 0));
    }
    return scans;
  }

  /** Drops columns in one statement (which does not rewrite the table), and makes the trigger keep only those left. */
  private async dropColumns(tx: SqlExecutor, className: string, gone: readonly string[]): Promise<void> {
    await tx.run(`ALTER TABLE ${this.ns.table(className)} ${gone.map((column) => `DROP COLUMN IF EXISTS ${ident(column)}`).join(', ')}`);
    await this.kept?.remake(tx, className);
  }

  private async runStep(tx: SqlExecutor, className: string, step: DdlStep, next: ClassSchema, columns: StoredState): Promise<void> {
    const d = this.dialect;
    const table = this.ns.table(className);
    switch (step.kind) {
      case 'createIndex': {
        const stored = Object.hasOwn(next.indexes, step.name) ? this.storedColumns(step.keys, step.unique === true) : null;
        if (stored) {
          await this.addColumns(tx, table, stored, columns, next);
          await this.createStoredIndex(tx, table, className, step.name, stored, step.keys.map((key) => key.descending));
          columns.stored = { ...columns.stored, [step.name]: stored };
          return;
        }
        // Its reader index, if any, is made by addReaderIndexes once the steps have run.
        await tx.run(this.expressionIndexSql(table, className, step.name, step.keys, { unique: step.unique === true, online: false }).index);
        return;
      }
      case 'dropIndex': {
        await this.dropSchemaIndex(tx, className, step.name);
        columns.readers.delete(step.name);
        if (!Object.hasOwn(columns.stored, step.name)) return;
        const { [step.name]: dropped, ...rest } = columns.stored;
        columns.stored = rest;
        // A column goes with the last index over it; dropping one does not rewrite the table.
        const kept = columnNames(rest);
        const gone = [...new Set(dropped!.map((column) => column.column))].filter((column) => !kept.has(column));
        if (kept.size === 0 && columns.publicColumn) {
          gone.push(PUBLIC_COLUMN);
          columns.publicColumn = false;
        }
        if (gone.length) await this.dropColumns(tx, className, gone);
        return;
      }
      case 'privateRows':
        columns.privateRows = true;
        return;
      case 'recordIndex':
        // Recorded after buildIndexOnline, which builds the reader index too where the class is marked.
        if (step.columns) {
          columns.stored = { ...columns.stored, [step.name]: step.columns };
          columns.publicColumn = true;
        }
        if (step.reader) columns.readers.add(step.name);
        return;
      case 'createTextIndex':
        for (const sql of d.createTextIndex({ className, name: step.name }, step.field, (object) => this.ns.table(object))) await tx.run(sql);
        return;
      case 'dropTextIndex':
        for (const sql of d.dropTextIndex({ className, name: step.name }, (object) => this.ns.table(object))) await tx.run(sql);
        return;
      case 'dropField':
        if (step.relation) {
          await tx.run(`DELETE FROM ${this.ns.table('_Join')} WHERE "owningClass" = ${d.placeholder(1)} AND "owningField" = ${d.placeholder(2)}`, [className, step.field]);
        } else {
          // Columns an automatic index's build added before the field went (the build then
          // recorded nothing): the trigger would go on reading the field, as the type it had.
          const leftover = (await this.kept?.ofField(tx, className, step.field)) ?? [];
          if (leftover.length) await this.dropColumns(tx, className, leftover);
          await tx.run(`UPDATE ${table} SET "data" = ${d.removeKey('"data"', step.field)}`);
        }
        return;
    }
  }
}
