import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresDriver } from '../sql/postgres/driver.ts';
import { SqliteDriver } from '../sql/sqlite/driver.ts';
import { testPostgresUrl } from '../sql/postgres/connection.test-helper.ts';
import type { SqlDriver } from '../sql/driver.ts';
import type { FindQuery, WhereNode } from '../query/ast.ts';

/** A class table `Item` on each database, filled straight through the driver, for tests of the store. */
export interface Opened {
  readonly driver: SqlDriver;
  readonly schema: string | null;
  /** Adds `n` public rows with scores from `from`, straight through the driver. */
  add(from: number, n: number): Promise<void>;
  close(): Promise<void>;
}

export const T0 = '2025-01-01T00:00:00.000Z';
export const id = (i: number) => `o${String(i).padStart(6, '0')}`;

export const BACKENDS: { name: string; open(): Promise<Opened> }[] = [
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'basalt-count-memory-'));
      const driver = new SqliteDriver(join(dir, 'app.db'));
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
    async open() {
      const schema = `count_memory_${process.pid}_${Date.now()}`;
      const driver = new PostgresDriver(testPostgresUrl(), 2);
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
