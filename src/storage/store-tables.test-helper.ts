import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresDriver } from '../sql/postgres/driver.ts';
import { SqliteDriver } from '../sql/sqlite/driver.ts';
import { testPostgresUrl } from '../sql/postgres/connection.test-helper.ts';
import type { SqlDriver } from '../sql/driver.ts';
import type { FindQuery, WhereNode } from '../query/ast.ts';

/** A class table `Item` on each database, filled straight through the driver, for tests of the store. */
export interface Opened<D extends SqlDriver = SqlDriver> {
  readonly driver: D;
  readonly schema: string | null;
  /** Adds `n` public rows with scores from `from`, straight through the driver. */
  add(from: number, n: number): Promise<void>;
  close(): Promise<void>;
}

export const T0 = '2025-01-01T00:00:00.000Z';
export const id = (i: number) => `o${String(i).padStart(6, '0')}`;

/** How a test makes each database's driver (a subclass that counts what it sends, say). */
export interface DriverMakers<D extends SqlDriver> {
  readonly sqlite: (file: string) => D;
  readonly postgres: (url: string) => D;
}

const PLAIN: DriverMakers<SqlDriver> = { sqlite: (file) => new SqliteDriver(file), postgres: (url) => new PostgresDriver(url, 2) };

export interface StoreBackend {
  readonly name: string;
  open<D extends SqlDriver = SqlDriver>(make?: DriverMakers<D>): Promise<Opened<D>>;
}

export const BACKENDS: StoreBackend[] = [
  {
    name: 'sqlite',
    async open<D extends SqlDriver>(make?: DriverMakers<D>) {
      const dir = mkdtempSync(join(tmpdir(), 'basalt-store-tables-'));
      const driver = (make ?? PLAIN).sqlite(join(dir, 'app.db')) as D;
      await driver.run(`CREATE TABLE "Item" ("objectId" text PRIMARY KEY, "createdAt" text NOT NULL, "updatedAt" text NOT NULL, "_rperm" text NOT NULL, "_wperm" text NOT NULL, "data" blob NOT NULL)`);
      await driver.run(`CREATE TABLE "_Join" ("owningClass" text, "owningField" text, "owningId" text, "relatedId" text)`);
      return {
        driver,
        schema: null,
        add: async (from, n) => {
          await driver.run(
            `WITH RECURSIVE "g"("i") AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT "i" + 1 FROM "g" WHERE "i" < ?) INSERT INTO "Item" SELECT 'o' || substr('000000' || "i", -6), ?, ?, '["*"]', '[]', jsonb_object('score', "i") FROM "g"`,
            [from, from + n - 1, T0, T0],
          );
        },
        close: async () => {
          await driver.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    async open<D extends SqlDriver>(make?: DriverMakers<D>) {
      const schema = `store_tables_${process.pid}_${Date.now()}`;
      const driver = (make ?? PLAIN).postgres(testPostgresUrl()) as D;
      await driver.run(`CREATE SCHEMA "${schema}"`);
      await driver.run(`CREATE TABLE "${schema}"."Item" ("objectId" text COLLATE "C" PRIMARY KEY, "createdAt" text NOT NULL, "updatedAt" text NOT NULL, "_rperm" text[] NOT NULL, "_wperm" text[] NOT NULL, "data" jsonb NOT NULL)`);
      await driver.run(`CREATE TABLE "${schema}"."_Join" ("owningClass" text, "owningField" text, "owningId" text, "relatedId" text)`);
      return {
        driver,
        schema,
        add: async (from, n) => {
          await driver.run(
            `INSERT INTO "${schema}"."Item" SELECT 'o' || lpad(i::text, 6, '0'), $3, $3, ARRAY['*'], ARRAY[]::text[], jsonb_build_object('score', i) FROM generate_series($1::int, $2::int) AS "g"("i")`,
            [from, from + n - 1, T0],
          );
        },
        close: async () => {
          await driver.run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await driver.close();
        },
      };
    },
  },
];

export const score = { kind: 'doc', path: ['score'] } as const;
export const atLeast = (value: number): WhereNode => ({ kind: 'compare', field: score, op: 'gte', value, as: 'number' });
export const publicRows = (where: WhereNode): WhereNode => ({ kind: 'and', nodes: [where, { kind: 'acl', access: 'read', principals: ['*'] }] });
export const page = (where: WhereNode): FindQuery => ({ where, order: [{ field: score, as: 'number', descending: true }], limit: 3, skip: 0 });
