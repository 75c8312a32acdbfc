import { NumberOverflow, StaleSchema, UniqueViolation, type AggregateRow, type AppStore, type ObjectWrite, type Principals, type RelationChange, type SharedSlots, type StoredObject, type WriteStep } from './port.ts';
import type { SqlExecutor, SqlParam, Row, StatementOptions } from '../sql/driver.ts';
import type { FindQuery, IndexHint, WhereNode } from '../query/ast.ts';
import { isSharedListsMark, type CompiledSql } from '../sql/compiler.ts';
import type { AggregatePlan, DistinctQuery } from '../query/aggregate/ast.ts';
import { compileAggregate } from '../sql/aggregate.ts';
import { compileDistinct } from '../sql/distinct.ts';
import { AppNamespace } from '../sql/namespace.ts';
import { UnitDriver } from './unit-driver.ts';
import { StatisticsKeeper } from './statistics-keeper.ts';
import { CountMemory, countKey } from './count-memory.ts';
import { BoundedCounts } from './bounded-counts.ts';
import { SqlSchemaStore } from './sql-schema-store.ts';
import { SqlEventStore } from './sql-events.ts';
import { StoredRow } from './stored-row.ts';
import { documentJson } from '../encoding/document-json.ts';
import { returnedFields, type InPlaceChange } from '../query/in-place.ts';
import { compileInPlaceUpdate } from '../sql/in-place.ts';

const JOIN_TABLE = '_Join';
/**
 * Queries: how many rows a range or a caller's read permission selects decides the plan, so they
 * are planned for their values each time (see the PostgreSQL driver).
 */
const VALUE_PLANNED = { planPerRun: true } as const;
/**
 * Reads that may scan: on SQLite they run on a reader thread, beside the main one (StatementOptions.reader);
 * inside a unit of work they stay on its connection and see its writes.
 */
const SCAN = { planPerRun: true, reader: true } as const;
const SCAN_PLANNED_ONCE = { reader: true } as const;
/** Reads whose one best plan serves any values (CompiledSql.planForAnyValues). */
const SCAN_PLANNED_FOR_ANY = { reader: true, planForAnyValues: true } as const;

/** How a page's statement runs: planned once, for any values, or for its values. */
function scanOptions(statement: CompiledSql): StatementOptions {
  return statement.planOnce ? SCAN_PLANNED_ONCE : statement.planForAnyValues ? SCAN_PLANNED_FOR_ANY : SCAN;
}

/** Classes whose INSERT and lookup texts are kept (madeOnce). */
const CLASS_SQLS_KEPT = 1000;

/** The Storage port over SQL: one table per class, the fields in one JSON document column. */
export class SqlAppStore implements AppStore {
  readonly schemas: SqlSchemaStore;
  readonly events: SqlEventStore;

  /**
   * `statistics`: the keeper of the store outside the unit of work this store is one of.
   * `counts`: the app's remembered large counts (count-memory.ts), one for every store of the app
   * in this process; every write through any of them forgets them.
   * `sharedLists`: the classes found holding read lists other than one principal besides "*"
   * (`readPage`), one set for every store of the app in this process.
   * `privateRowWritten`: told of each write leaving a row "*" may not read (schema/types.ts,
   * `privateRows`).
   */
  constructor(
    private readonly ns: AppNamespace,
    private readonly statistics = new StatisticsKeeper(ns.driver, (className) => ns.table(className)),
    private readonly counts = new CountMemory(0),
    private readonly sharedLists = new Set<string>(),
    private readonly privateRowWritten: ((className: string) => void) | null = null,
  ) {
    this.schemas = new SqlSchemaStore(ns, counts);
    this.events = new SqlEventStore(ns);
    this.bounded = new BoundedCounts(
      counts,
      (className, { field, rest }, limit) => this.dialect.valueCounts(this.tables, className, field, rest, limit),
      ({ sql, params }) => this.query(sql, params, SCAN),
    );
  }

  private readonly bounded: BoundedCounts;

  /** A write has ended (or, inside a unit of work, been made: the unit's end forgets again). */
  private wrote(className: string): void {
    this.statistics.noteWrite(className);
    this.counts.written();
  }

  /** Inside a unit of work a count may see the unit's own writes: it is neither recalled nor kept. */
  private get remembersCounts(): boolean {
    return this.counts.enabled && !(this.ns.driver instanceof UnitDriver);
  }

  private readonly tables = (className: string) => this.ns.table(className);
  /**
   * Statements compiled for a query object: the REST layer hands the same object back for the
   * same query from the same caller (rest/query-plans.ts), and a compiled statement holds only
   * what that object says.
   */
  private readonly compiledFinds = new WeakMap<FindQuery, { readonly className: string; readonly statements: (() => CompiledSql)[] }>();
  private readonly templateSlots = new WeakMap<readonly SqlParam[], { readonly sentinels: readonly number[]; readonly slots: readonly number[] }>();
  private readonly compiledCounts = new WeakMap<WhereNode, { readonly className: string; readonly hint: IndexHint | undefined; readonly statement: CompiledSql }>();
  private readonly compiledCounted = new WeakMap<FindQuery, { readonly className: string; readonly countWhere: WhereNode; readonly statement: CompiledSql | null }>();

  private readonly insertSqls = new Map<string, string>();
  private readonly getSqls = new Map<string, LookupSql>();

  private get dialect() {
    return this.ns.driver.dialect;
  }

  async insert(className: string, write: ObjectWrite): Promise<void> {
    const { object } = write;
    const sql = this.insertSql(className);
    // In the order of the placeholders insertSql numbers.
    const values = [object.objectId, object.createdAt, object.updatedAt, object.rperm, object.wperm, documentJson(object.data)];
    try {
      if (write.relations.length === 0 && !write.steps?.length) {
        await this.ns.driver.insertRow(sql, values);
      } else {
        await this.ns.driver.transaction(async (tx) => {
          await tx.run(sql, values);
          await this.applyRelations(tx, className, object.objectId, write.relations);
          for (const step of write.steps ?? []) await step(tx);
        });
      }
      this.wrote(className);
      if (this.privateRowWritten && !object.rperm.includes('*')) this.privateRowWritten(className);
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * The text of a class's INSERT, made once: the driver finds its prepared statement by this
   * text, and the same string object is found at once, where a text built anew must be hashed
   * and compared in full on every create.
   */
  private insertSql(className: string): string {
    return madeOnce(this.insertSqls, className, () => {
      const d = this.dialect;
      const params = d.params();
      const values = [params.add(null), params.add(null), params.add(null), d.permsParam(params.add(null)), d.permsParam(params.add(null)), d.jsonParam(params.add(null))];
      return `INSERT INTO ${this.ns.table(className)} ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data") VALUES (${values.join(', ')})`;
    });
  }

  /**
   * The lookup by id of a class, made once: the text is also the key the reads of one moment are
   * gathered by, and building and hashing it anew cost every read.
   */
  private getSql(className: string): LookupSql {
    return madeOnce(this.getSqls, className, () => {
      const d = this.dialect;
      const table = this.ns.table(className);
      const columns = `"objectId", "createdAt", "updatedAt", ${d.selectDoc()}, ${d.selectPerms('_rperm')} AS "rperm", ${d.selectPerms('_wperm')} AS "wperm"`;
      // The reads of one moment may be answered together, by the form that takes a list of ids.
      const batched = d.selectByKeys(columns, table, 'objectId', d.placeholder(1));
      return { single: `SELECT ${columns} FROM ${table} WHERE "objectId" = ${d.placeholder(1)}`, batched: () => batched };
    });
  }

  /**
   * A query compiled from the caller's schema: it may name the stored column of an index that
   * another process has just dropped (sql-schema-store.ts), which becomes StaleSchema.
   */
  private async query(sql: string, params: readonly SqlParam[], options?: StatementOptions): Promise<Row[]> {
    try {
      return await this.ns.driver.all(sql, params, options);
    } catch (error) {
      throw this.staleSchemaOr(error);
    }
  }

  /** A statement that named a column its table no longer has ran on a schema changed since. */
  private staleSchemaOr(error: unknown): unknown {
    return this.ns.driver.missingColumn(error) ? new StaleSchema() : error;
  }

  /** Unique-index failures become UniqueViolation; anything else passes through. */
  private translate(error: unknown): unknown {
    const index = this.ns.driver.uniqueViolation(error);
    return index === null ? error : new UniqueViolation(index);
  }

  /**
   * The hot path of spec 4.1: one primary-key lookup. The read permission of a single row is
   * checked here rather than in SQL, which on SQLite saves a json_each scan per request.
   */
  async get(className: string, objectId: string, read: Principals): Promise<StoredObject | null> {
    const { single, batched } = this.getSql(className);
    const row = await this.ns.driver.lookupRow(single, objectId, batched, 'objectId');
    if (!row) return null;
    const object = toStoredObject(row);
    if (read && !object.rperm.some((principal) => read.includes(principal))) return null;
    return object;
  }

  async find(className: string, query: FindQuery): Promise<StoredObject[]> {
    const statements = this.findStatements(className, query);
    for (const [i, statement] of statements.entries()) {
      const rows = await this.readPage(className, statement(), (form) => form.params);
      if (rows.length >= query.limit || i === statements.length - 1) return rows.map((row) => toStoredObject(row));
    }
    return [];
  }

  sameStatements(className: string, template: FindQuery, query: FindQuery, sentinels: readonly number[], values: readonly number[]): boolean {
    const made = this.findStatements(className, template);
    const real = this.findStatements(className, query);
    if (made.length !== 1 || real.length !== 1) return false;
    const a = made[0]!();
    const b = real[0]!();
    const same = (a: CompiledSql, b: CompiledSql) => {
      const filled = filledParams(a.params, this.sentinelSlots(a.params, sentinels), values);
      return a.sql === b.sql && a.planOnce === b.planOnce && a.planForAnyValues === b.planForAnyValues && sameParams(filled, b.params);
    };
    return same(a, b) && (a.ownListsOnly && b.ownListsOnly ? same(a.ownListsOnly, b.ownListsOnly) : a.ownListsOnly === b.ownListsOnly);
  }

  async findLike(className: string, template: FindQuery, sentinels: readonly number[], values: readonly number[]): Promise<StoredObject[]> {
    const rows = await this.readPage(className, this.findStatements(className, template)[0]!(), (form) => filledParams(form.params, this.sentinelSlots(form.params, sentinels), values));
    return rows.map((row) => toStoredObject(row));
  }

  /**
   * Reads a page with `statement`, or with its own-lists form where the class is not known to hold
   * other read lists (CompiledSql.ownListsOnly); where that form finds such lists, the class is
   * known to from then on and the page is read again in full. `paramsOf`: a form's parameters.
   */
  private async readPage(className: string, statement: CompiledSql, paramsOf: (form: CompiledSql) => readonly SqlParam[]): Promise<Row[]> {
    const own = this.pageForm(className, statement);
    if (own !== statement) {
      const rows = await this.query(own.sql, paramsOf(own), scanOptions(own));
      if (!rows.some(isSharedListsMark)) return rows;
      this.sharedLists.add(className);
    }
    return this.query(statement.sql, paramsOf(statement), scanOptions(statement));
  }

  /** The form of a page `readPage` would read first. */
  private pageForm(className: string, statement: CompiledSql): CompiledSql {
    return (!this.sharedLists.has(className) && statement.ownListsOnly) || statement;
  }

  /** Which sentinel each parameter of a template's statement is (its index), if any. */
  private sentinelSlots(params: readonly SqlParam[], sentinels: readonly number[]): readonly number[] {
    let made = this.templateSlots.get(params);
    if (made?.sentinels !== sentinels) {
      made = { sentinels, slots: params.map((param) => (typeof param === 'number' ? sentinels.indexOf(param) : -1)) };
      this.templateSlots.set(params, made);
    }
    return made.slots;
  }

  /** Several statements only for a nearest-first page searched ring by ring (sql/geo.ts). */
  private findStatements(className: string, query: FindQuery): (() => CompiledSql)[] {
    let compiled = this.compiledFinds.get(query);
    if (compiled?.className !== className) {
      compiled = { className, statements: this.dialect.findStatements(this.tables, className, query).map(once) };
      this.compiledFinds.set(query, compiled);
    }
    return compiled.statements;
  }

  async count(className: string, where: WhereNode, hint?: IndexHint): Promise<number> {
    const { sql, params } = this.countStatement(className, where, hint);
    const key = this.remembersCounts ? countKey(sql, params) : null;
    const remembered = key === null ? undefined : this.counts.recall(key);
    if (remembered !== undefined) return remembered;
    const bounded = key === null || hint ? null : this.bounded.of(className, where);
    const fromValues = bounded ? this.bounded.recall(bounded) : undefined;
    if (fromValues !== undefined) return fromValues;
    const generation = this.counts.generation;
    const rows = await this.query(sql, params, SCAN);
    const count = Number(rows[0]?.n ?? 0);
    if (key !== null) this.counts.remember(key, generation, count);
    if (bounded) this.bounded.counted(bounded, generation, count);
    return count;
  }

  private countStatement(className: string, where: WhereNode, hint: IndexHint | undefined): CompiledSql {
    let compiled = this.compiledCounts.get(where);
    if (compiled?.className !== className || compiled.hint !== hint) {
      compiled = { className, hint, statement: this.dialect.count(this.tables, className, where, hint) };
      this.compiledCounts.set(where, compiled);
    }
    return compiled.statement;
  }

  async aggregate(className: string, plan: AggregatePlan, maxRows: number): Promise<AggregateRow[]> {
    const { sql, params } = compileAggregate(this.dialect, this.tables, className, plan, maxRows);
    let rows: Row[];
    try {
      rows = await this.query(sql, params, SCAN);
    } catch (error) {
      throw this.ns.driver.outOfRange(error) ? new NumberOverflow() : error;
    }
    return rows.map((row) => {
      const data = JSON.parse(String(row.data)) as Record<string, unknown>;
      // SQLite writes an infinite sum into JSON as 9.0e+999, which parses as Infinity.
      if (row.objectId === undefined && Object.values(data).some((value) => typeof value === 'number' && !Number.isFinite(value))) throw new NumberOverflow();
      return { ...(row.objectId === undefined ? {} : { objectId: String(row.objectId), createdAt: String(row.createdAt), updatedAt: String(row.updatedAt) }), data };
    });
  }

  async distinct(className: string, query: DistinctQuery, maxRows: number): Promise<unknown[]> {
    const { sql, params } = compileDistinct(this.dialect, this.tables, className, query, maxRows);
    const rows = await this.query(sql, params, SCAN);
    // Elements and untyped values are selected as JSON text.
    return rows.map((row) => (query.kind === 'scalar' ? row._v : JSON.parse(String(row._v))));
  }

  /**
   * A page and its count in one statement where the page is a plain one (sql/compiler.ts,
   * `countedSelect`): on PostgreSQL each statement is a round trip and a little work of its own
   * (parse, bind, a command to start and end), which at the size of a page cost as much as the
   * count itself. An empty page carries no count, so the count then runs alone. Both parts
   * depend on their values, so the statement is planned per run like each of them.
   */
  async findWithCount(className: string, query: FindQuery, countWhere: WhereNode): Promise<{ objects: StoredObject[]; count: number }> {
    const counted = this.remembersCounts ? this.countStatement(className, countWhere, query.hint) : null;
    const key = counted && countKey(counted.sql, counted.params);
    const bounded = key === null || query.hint ? null : this.bounded.of(className, countWhere);
    // A remembered count leaves the page alone, which is cheaper than the page with its count.
    const remembered = key === null ? undefined : (this.counts.recall(key) ?? (bounded ? this.bounded.recall(bounded) : undefined));
    if (remembered !== undefined) return { objects: await this.find(className, query), count: remembered };
    const statement = this.countedStatement(className, query, countWhere);
    if (!statement) {
      const [objects, count] = await Promise.all([this.find(className, query), this.count(className, countWhere, query.hint)]);
      return { objects, count };
    }
    const generation = this.counts.generation;
    const rows = await this.query(statement.sql, statement.params, SCAN);
    if (rows.length === 0) return { objects: [], count: await this.count(className, countWhere, query.hint) };
    const count = Number(rows[0]!._n);
    if (key !== null) this.counts.remember(key, generation, count);
    if (bounded) this.bounded.counted(bounded, generation, count);
    return { objects: rows.map((row) => toStoredObject(row)), count };
  }

  private countedStatement(className: string, query: FindQuery, countWhere: WhereNode): CompiledSql | null {
    let compiled = this.compiledCounted.get(query);
    if (compiled?.className !== className || compiled.countWhere !== countWhere) {
      compiled = { className, countWhere, statement: this.dialect.countedSelect(this.tables, className, query, countWhere) };
      this.compiledCounted.set(query, compiled);
    }
    return compiled.statement;
  }

  /**
   * The very statements the reads would run, compiled from the same objects (and kept alike),
   * each handed to the database's EXPLAIN with its parameters and planned as its run would be.
   * A page that can carry its count is one statement; a page whose count runs beside it, two.
   */
  async explain(className: string, query: FindQuery | null, countWhere: WhereNode | null, hint?: IndexHint): Promise<unknown[]> {
    const counted = query && countWhere ? this.countedStatement(className, query, countWhere) : null;
    const statements: CompiledSql[] = counted ? [counted] : query ? this.findStatements(className, query).map((statement) => this.pageForm(className, statement())) : [];
    if (countWhere && !counted) statements.push(this.countStatement(className, countWhere, query ? query.hint : hint));
    const plans: unknown[] = [];
    const driver = this.ns.driver;
    for (const { sql, params, planOnce, planForAnyValues } of statements) {
      const rows =
        planForAnyValues && driver.explainForAnyValues
          ? await driver.explainForAnyValues((statement) => this.dialect.explainSql(statement), sql, params).catch((error: unknown) => {
              throw this.staleSchemaOr(error);
            })
          : await this.query(this.dialect.explainSql(sql), params, planOnce ? undefined : VALUE_PLANNED);
      plans.push(this.dialect.planOf(rows));
    }
    return plans;
  }

  async update(className: string, objectId: string, write: Principals, mutate: (current: StoredObject) => ObjectWrite): Promise<StoredObject | null> {
    const table = this.ns.table(className);
    const d = this.dialect;
    try {
      const updated = await this.ns.driver.transaction(async (tx) => {
        const rows = await tx.all(
          `SELECT "objectId", "createdAt", "updatedAt", ${d.selectDoc()}, ${d.selectPerms('_rperm')} AS "rperm", ${d.selectPerms('_wperm')} AS "wperm" FROM ${table} WHERE "objectId" = ${d.placeholder(1)}${d.lockClause}`,
          [objectId],
        );
        const row = rows[0];
        if (!row) return null;
        const current = toStoredObject(row, false);
        if (write && !current.wperm.some((principal) => write.includes(principal))) return null;
        const next = mutate(current);
        const params = d.params();
        const sets = [
          `"updatedAt" = ${params.add(next.object.updatedAt)}`,
          `"_rperm" = ${d.permsParam(params.add(next.object.rperm))}`,
          `"_wperm" = ${d.permsParam(params.add(next.object.wperm))}`,
          `"data" = ${d.jsonParam(params.add(JSON.stringify(next.object.data)))}`,
        ];
        await tx.run(`UPDATE ${table} SET ${sets.join(', ')} WHERE "objectId" = ${params.add(objectId)}`, params.values);
        await this.applyRelations(tx, className, objectId, next.relations);
        for (const step of next.steps ?? []) await step(tx);
        return next.object;
      });
      if (updated) {
        this.wrote(className);
        if (this.privateRowWritten && !updated.rperm.includes('*')) this.privateRowWritten(className);
      }
      return updated;
    } catch (error) {
      throw this.translate(error);
    }
  }

  async updateInPlace(className: string, objectId: string, write: Principals, change: InPlaceChange): Promise<Record<string, unknown> | null> {
    const { sql, params } = compileInPlaceUpdate(this.dialect, this.ns.table(className), objectId, write, change);
    let rows: Row[];
    try {
      // No sum can overflow here: numbers past 1e300 are left to the path that reads the row.
      rows = await this.ns.driver.writeRows(sql, params, objectId);
    } catch (error) {
      throw this.translate(error);
    }
    const row = rows[0];
    if (!row) return null;
    this.wrote(className);
    const results: Record<string, unknown> = {};
    let i = 0;
    for (const field of returnedFields(change)) results[field] = JSON.parse(String(row[`r${i++}`]));
    return results;
  }

  async delete(className: string, objectId: string, write: Principals, only?: WhereNode): Promise<boolean> {
    const table = this.ns.table(className);
    const d = this.dialect;
    const deleted = await this.ns.driver.transaction(async (tx) => {
      const params = d.params(this.tables);
      let where = `"objectId" = ${params.add(objectId)}`;
      if (write) where += ` AND ${d.where({ kind: 'acl', access: 'write', principals: write }, params)}`;
      if (only) where += ` AND (${d.where(only, params)})`;
      const deleted = await tx.run(`DELETE FROM ${table} WHERE ${where}`, params.values);
      if (deleted === 0) return false;
      await tx.run(`DELETE FROM ${this.ns.table(JOIN_TABLE)} WHERE "owningClass" = ${d.placeholder(1)} AND "owningId" = ${d.placeholder(2)}`, [className, objectId]);
      return true;
    });
    if (deleted) this.wrote(className);
    return deleted;
  }

  unitOfWork<T>(fn: (unit: AppStore) => Promise<T>): Promise<T> {
    const { driver, schema } = this.ns;
    // Already in a unit: the outer one's connection, under a savepoint.
    if (driver instanceof UnitDriver) return driver.transaction(() => fn(this));
    let unit: UnitDriver | null = null;
    return driver
      .transaction((tx) => fn(new SqlAppStore(new AppNamespace((unit = new UnitDriver(tx, driver)), schema), this.statistics, this.counts, this.sharedLists, this.privateRowWritten)))
      .finally(() => {
        unit?.end();
        // Committed or rolled back: counts taken while the unit was open are forgotten.
        this.counts.written();
      });
  }

  async canWrite(className: string, objectId: string, write: Principals): Promise<boolean> {
    const d = this.dialect;
    const params = d.params();
    let where = `"objectId" = ${params.add(objectId)}`;
    if (write) where += ` AND ${d.where({ kind: 'acl', access: 'write', principals: write }, params)}`;
    const rows = await this.ns.driver.all(`SELECT 1 AS "found" FROM ${this.ns.table(className)} WHERE ${where}`, params.values);
    return rows.length > 0;
  }

  async relatedIds(className: string, field: string, objectId: string): Promise<string[]> {
    const d = this.dialect;
    const rows = await this.ns.driver.all(
      `SELECT "relatedId" FROM ${this.ns.table(JOIN_TABLE)} WHERE "owningClass" = ${d.placeholder(1)} AND "owningField" = ${d.placeholder(2)} AND "owningId" = ${d.placeholder(3)} ORDER BY "relatedId"`,
      [className, field, objectId],
    );
    return rows.map((row) => String(row.relatedId));
  }

  async runSteps(steps: readonly WriteStep[]): Promise<void> {
    if (steps.length === 0) return;
    try {
      await this.ns.driver.transaction(async (tx) => {
        for (const step of steps) await step(tx);
      });
    } finally {
      this.counts.written();
    }
  }

  async claimRequest(requestId: string, now: number, staleBefore: number): Promise<null | 'running' | { status: number; body: unknown }> {
    const d = this.dialect;
    const table = this.ns.table('_Idempotency');
    await this.ns.driver.run(`DELETE FROM ${table} WHERE "startedAt" < ${d.placeholder(1)}`, [staleBefore]);
    const claimed = await this.ns.driver.all(
      `INSERT INTO ${table} ("requestId", "startedAt") VALUES (${d.placeholder(1)}, ${d.placeholder(2)}) ON CONFLICT ("requestId") DO NOTHING RETURNING "requestId"`,
      [requestId, now],
    );
    if (claimed.length > 0) return null;
    const rows = await this.ns.driver.all(`SELECT "status", "body" FROM ${table} WHERE "requestId" = ${d.placeholder(1)}`, [requestId]);
    const row = rows[0];
    if (!row || row.status === null || row.status === undefined) return 'running';
    return { status: Number(row.status), body: JSON.parse(String(row.body)) };
  }

  async completeRequest(requestId: string, status: number, body: unknown): Promise<void> {
    const d = this.dialect;
    await this.ns.driver.run(`UPDATE ${this.ns.table('_Idempotency')} SET "status" = ${d.placeholder(1)}, "body" = ${d.placeholder(2)} WHERE "requestId" = ${d.placeholder(3)}`, [status, JSON.stringify(body), requestId]);
  }

  async releaseRequest(requestId: string): Promise<void> {
    await this.ns.driver.run(`DELETE FROM ${this.ns.table('_Idempotency')} WHERE "requestId" = ${this.dialect.placeholder(1)}`, [requestId]);
  }

  get sharedSlots(): SharedSlots | null {
    return this.ns.driver.sharedSlots;
  }

  async countInWindow(key: string, window: number, amount = 1): Promise<number> {
    const d = this.dialect;
    const table = this.ns.table('_Rate');
    const rows = await this.ns.driver.all(
      `INSERT INTO ${table} AS "r" ("key", "window", "n") VALUES (${d.placeholder(1)}, ${d.placeholder(2)}, ${d.placeholder(3)}) ON CONFLICT ("key") DO UPDATE SET "n" = CASE WHEN "r"."window" = excluded."window" THEN "r"."n" + excluded."n" ELSE excluded."n" END, "window" = excluded."window" RETURNING "n"`,
      [key, window, amount],
    );
    return Number(rows[0]?.n ?? amount);
  }

  private async applyRelations(tx: SqlExecutor, className: string, objectId: string, changes: readonly RelationChange[]): Promise<void> {
    const d = this.dialect;
    const join = this.ns.table(JOIN_TABLE);
    for (const change of changes) {
      for (const relatedId of change.add) {
        await tx.run(
          `INSERT INTO ${join} ("owningClass", "owningField", "owningId", "relatedId") VALUES (${d.placeholder(1)}, ${d.placeholder(2)}, ${d.placeholder(3)}, ${d.placeholder(4)}) ON CONFLICT DO NOTHING`,
          [className, change.field, objectId, relatedId],
        );
      }
      for (const relatedId of change.remove) {
        await tx.run(
          `DELETE FROM ${join} WHERE "owningClass" = ${d.placeholder(1)} AND "owningField" = ${d.placeholder(2)} AND "owningId" = ${d.placeholder(3)} AND "relatedId" = ${d.placeholder(4)}`,
          [className, change.field, objectId, relatedId],
        );
      }
    }
  }
}

interface LookupSql {
  readonly single: string;
  readonly batched: () => string;
}

/** The text kept for a class, made on first use; clients make classes too, so the cache is bounded. */
function madeOnce<T>(cache: Map<string, T>, className: string, make: () => T): T {
  let made = cache.get(className);
  if (made === undefined) {
    made = make();
    if (cache.size >= CLASS_SQLS_KEPT) cache.clear();
    cache.set(className, made);
  }
  return made;
}

/** `params` with `values[slot]` where `slots` names a sentinel. */
function filledParams(params: readonly SqlParam[], slots: readonly number[], values: readonly number[]): SqlParam[] {
  return params.map((param, i) => (slots[i]! >= 0 ? values[slots[i]!]! : param));
}

function sameParams(a: readonly SqlParam[], b: readonly SqlParam[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((param, i) => {
    const other = b[i];
    if (Array.isArray(param) && Array.isArray(other)) return param.length === other.length && param.every((item, j) => item === other[j]);
    if (Buffer.isBuffer(param) && Buffer.isBuffer(other)) return param.equals(other);
    return Object.is(param, other);
  });
}

/** `make`, called at most once. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

/** `lazy`: the document is parsed when first read (storage/stored-row.ts); writes read it at once. */
function toStoredObject(row: Row, lazy = true): StoredObject {
  const rperm = parsePerms(row.rperm);
  const wperm = parsePerms(row.wperm);
  const { data } = row;
  if (typeof data === 'string' && lazy) return new StoredRow(String(row.objectId), String(row.createdAt), String(row.updatedAt), data, rperm, wperm);
  return {
    objectId: String(row.objectId),
    createdAt: String(row.createdAt),
    updatedAt: String(row.updatedAt),
    data: typeof data === 'string' ? (JSON.parse(data) as Record<string, unknown>) : (data as Record<string, unknown>),
    rperm,
    wperm,
  };
}

// Most rows of a class share a few permission lists (`["*"]` above all): parsed once, shared
// frozen, instead of two JSON.parse calls for every row read.
const parsedPerms = new Map<string, string[]>();
const PARSED_PERMS_KEPT = 256;

function parsePerms(value: unknown): string[] {
  if (Array.isArray(value)) return value as string[];
  if (typeof value !== 'string') return [];
  let perms = parsedPerms.get(value);
  if (!perms) {
    perms = Object.freeze(JSON.parse(value)) as string[];
    if (parsedPerms.size >= PARSED_PERMS_KEPT) parsedPerms.clear();
    parsedPerms.set(value, perms);
  }
  return perms;
}

export { JOIN_TABLE };
