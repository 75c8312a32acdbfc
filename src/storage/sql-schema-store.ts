import { Errors } from '../errors/index.ts';
import type { DdlStep, IndexKey, SchemaStore } from './port.ts';
import type { SqlExecutor } from './driver.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { AppNamespace } from './namespace.ts';
import { ident, schemaIndexName } from '../sql/params.ts';
import { textIndexNames } from '../schema/indexes.ts';

export const SCHEMA_TABLE = '_SCHEMA';

/** Class schemas in the app's `_SCHEMA` table, and the DDL that goes with changing them. */
export class SqlSchemaStore implements SchemaStore {
  constructor(private readonly ns: AppNamespace) {}

  private get dialect() {
    return this.ns.driver.dialect;
  }

  async loadAll(): Promise<ClassSchema[]> {
    const rows = await this.ns.driver.all(`SELECT "className", "schema" FROM ${this.ns.table(SCHEMA_TABLE)} ORDER BY "className"`);
    return rows.map((row) => JSON.parse(String(row.schema)) as ClassSchema);
  }

  async change(
    className: string,
    change: (current: ClassSchema | null) => ClassSchema | null,
    ddl: (current: ClassSchema | null, next: ClassSchema) => DdlStep[] = () => [],
  ): Promise<ClassSchema | null> {
    const d = this.dialect;
    const schemaTable = this.ns.table(SCHEMA_TABLE);
    return this.ns.driver.transaction(async (tx) => {
      const current = await this.lockClass(tx, className);
      const next = change(current);
      if (!next || next === current) return current;
      if (!current) await this.createClassTable(tx, className);
      for (const step of ddl(current, next)) await this.runStep(tx, className, step);
      const json = JSON.stringify(next);
      if (current) await tx.run(`UPDATE ${schemaTable} SET "schema" = ${d.placeholder(1)} WHERE "className" = ${d.placeholder(2)}`, [json, className]);
      else await tx.run(`INSERT INTO ${schemaTable} ("className", "schema") VALUES (${d.placeholder(1)}, ${d.placeholder(2)})`, [className, json]);
      return next;
    });
  }

  /** Drops the class, its table and its join rows; refuses (255) while the class holds objects. */
  async drop(className: string): Promise<void> {
    const d = this.dialect;
    const table = this.ns.table(className);
    await this.ns.driver.transaction(async (tx) => {
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
      await tx.run(`DELETE FROM ${this.ns.table('_Join')} WHERE "owningClass" = ${d.placeholder(1)}`, [className]);
      await tx.run(`DELETE FROM ${this.ns.table(SCHEMA_TABLE)} WHERE "className" = ${d.placeholder(1)}`, [className]);
    });
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
    const lock = d.transactionLockSql();
    if (lock) await tx.run(lock, [`${this.ns.schema}.${className}`]);
    const rows = await tx.all(`SELECT "schema" FROM ${this.ns.table(SCHEMA_TABLE)} WHERE "className" = ${d.placeholder(1)}${d.lockClause}`, [className]);
    return rows[0] ? (JSON.parse(String(rows[0].schema)) as ClassSchema) : null;
  }

  /** The database name of a schema-API index: "<class>_idx:<index>" (sql/params.ts). */
  private userIndexName(className: string, indexName: string): string {
    return schemaIndexName(className, indexName);
  }

  private async createClassTable(tx: SqlExecutor, className: string): Promise<void> {
    const d = this.dialect;
    const table = this.ns.table(className);
    await tx.run(
      `CREATE TABLE IF NOT EXISTS ${table} ("objectId" ${d.keyType} PRIMARY KEY, "createdAt" ${d.keyType} NOT NULL, "updatedAt" ${d.keyType} NOT NULL, "_rperm" ${d.permsType} NOT NULL, "_wperm" ${d.permsType} NOT NULL, "data" ${d.docType} NOT NULL)`,
    );
    for (const column of ['createdAt', 'updatedAt']) {
      await tx.run(`CREATE INDEX IF NOT EXISTS ${ident(this.ns.indexName(className, column))} ON ${table} ("${column}")`);
    }
    const perms = d.permsIndex(this.ns.indexName(className, 'rperm'), table);
    if (perms) await tx.run(perms);
  }

  private async runStep(tx: SqlExecutor, className: string, step: DdlStep): Promise<void> {
    const d = this.dialect;
    const table = this.ns.table(className);
    switch (step.kind) {
      case 'createIndex': {
        const expr = (key: IndexKey) => (key.latitudeCell ? d.latitudeCell(d.fieldExpr(key.field, 'number')) : d.fieldExpr(key.field, key.as));
        const columns = step.keys.map((key: IndexKey) => d.indexExpr(expr(key), key.descending));
        // Not on a unique index (the list would take part in uniqueness), nor on a GeoPoint's cell
        // index, whose rows are read anyway for the distance.
        if (d.permsInIndexes && !step.unique && !step.keys.some((key) => key.latitudeCell)) columns.push('"_rperm"');
        const name = ident(this.userIndexName(className, step.name));
        await tx.run(`CREATE ${step.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${table} (${columns.join(', ')})`);
        return;
      }
      case 'dropIndex':
        await tx.run(`DROP INDEX IF EXISTS ${d.qualifyIndex(this.ns.schema, this.userIndexName(className, step.name))}`);
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
          await tx.run(`UPDATE ${table} SET "data" = ${d.removeKey('"data"', step.field)}`);
        }
        return;
    }
  }
}
