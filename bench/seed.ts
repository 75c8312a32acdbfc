/**
 * Bulk data for the query and user suites, written straight into an app's class tables: a
 * million objects through the batch API would take longer than the whole benchmark. The class is
 * always created through the schema API first, so the table, its built-in indexes and the schema
 * are Basalt's own; only the rows come from here.
 *
 * Every object is a pure function of its number i, defined once in JavaScript (`doc`, `objectId`,
 * …). SQLite rows are written from those functions through a prepared statement (`jsonb(?)` on
 * the JSON text, as Basalt itself writes); PostgreSQL rows are generated inside the database
 * (INSERT … SELECT over generate_series) by SQL that mirrors the same functions, and
 * `checkSeeded` reads objects back through the API to prove the two agree.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { APP } from './servers.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Coprime to 62, so i·ID_STEP + salt is distinct modulo 62^10 for every i: ids never collide. */
const ID_STEP = 762_939_453_125n;
const ID_DIGITS = 10;
/** Objects are created one second apart from here, like a year-old app's history. */
const EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * A 10-character id, least significant base-62 digit first so that consecutive objects get
 * unrelated ids (API ids are random; ids in insertion order would flatter the primary key).
 */
export function objectId(i: number, salt: number): string {
  let x = BigInt(i) * ID_STEP + BigInt(salt);
  let id = '';
  for (let k = 0; k < ID_DIGITS; k++) {
    id += ALPHABET[Number(x % 62n)];
    x /= 62n;
  }
  return id;
}

function objectIdSql(i: string, salt: number): string {
  const x = `(${i} * ${ID_STEP} + ${salt})`;
  const digits = Array.from({ length: ID_DIGITS }, (_, k) => `substr('${ALPHABET}', ((${x} / ${62n ** BigInt(k)}) % 62)::int + 1, 1)`);
  return digits.join(' || ');
}

function timestamp(i: number): string {
  return new Date(EPOCH_MS + i * 1000).toISOString();
}

function timestampSql(i: string): string {
  return `to_char(timestamp '2025-01-01 00:00:00' + ${i} * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** What one class's generated rows hold. JSON documents keep the key order a client would send. */
export interface DataSet {
  readonly className: string;
  readonly salt: number;
  doc(i: number): Record<string, unknown>;
  /** The same document, built by PostgreSQL from the bigint column `i`. */
  readonly docSql: string;
  rperm(i: number): string[];
  readonly rpermSql: string;
  wperm(i: number): string[];
  readonly wpermSql: string;
}

export const OWNERS = 1000;
/** A tier of the owners, shared by 1% of them (and so of the items): the `$inQuery` selects it. */
export const OWNER_TIERS = 100;
const PUBLIC = ['*'];

export const OWNER_SET: DataSet = {
  className: 'Owner',
  salt: 2,
  doc: (j) => ({ name: `o${j}`, tier: j % OWNER_TIERS }),
  docSql: `jsonb_build_object('name', 'o' || i, 'tier', i % ${OWNER_TIERS})`,
  rperm: () => PUBLIC,
  rpermSql: `ARRAY['*']`,
  wperm: () => PUBLIC,
  wpermSql: `ARRAY['*']`,
};

/**
 * Scores are a permutation of 0 … 999,999 (SCORE_STEP is coprime to 10^6) scattered over the
 * table, so the highest scores are spread across the heap as they would be in a real app, where
 * a row's position says nothing about its score.
 */
export const SCORE_RANGE = 1_000_000;
const SCORE_STEP = 738_781;
/** Knuth's multiplicative hashes, for coordinates that do not line up with i. */
const HASH_A = 2_654_435_761;
const HASH_B = 2_246_822_519;
const TWO_32 = 4_294_967_296;

/** Points fall in a box over western Europe, to 0.001°: latitude 35–60, longitude −10–30. */
function latitude(i: number): number {
  return (35_000 + ((i * HASH_A) % TWO_32) % 25_000) / 1000;
}
function longitude(i: number): number {
  return (-10_000 + ((i * HASH_B) % TWO_32) % 40_000) / 1000;
}

export const ITEM_SET: DataSet = {
  className: 'Item',
  salt: 1,
  doc: (i) => ({
    score: (i * SCORE_STEP) % SCORE_RANGE,
    name: `p${i}`,
    owner: { __type: 'Pointer', className: 'Owner', objectId: objectId(i % OWNERS, OWNER_SET.salt) },
    loc: { __type: 'GeoPoint', latitude: latitude(i), longitude: longitude(i) },
  }),
  // float8, not numeric: numeric division would keep a scale of 16 digits ("47.1230000000000000"),
  // while a float8 enters jsonb with 15 significant digits and no trailing zeros, as "47.123".
  docSql: `jsonb_build_object(
    'score', (i * ${SCORE_STEP}) % ${SCORE_RANGE},
    'name', 'p' || i,
    'owner', jsonb_build_object('__type', 'Pointer', 'className', 'Owner', 'objectId', ${objectIdSql(`(i % ${OWNERS})`, OWNER_SET.salt)}),
    'loc', jsonb_build_object('__type', 'GeoPoint',
      'latitude', (35000 + ((i * ${HASH_A}) % ${TWO_32}) % 25000)::float8 / 1000,
      'longitude', (-10000 + ((i * ${HASH_B}) % ${TWO_32}) % 40000)::float8 / 1000))`,
  rperm: () => PUBLIC,
  rpermSql: `ARRAY['*']`,
  wperm: () => PUBLIC,
  wpermSql: `ARRAY['*']`,
};

/** Share of the secrets the bench user may read: 1 in READABLE_EVERY. */
export const READABLE_EVERY = 10;
/** Another user, who may read the rest; the bench never logs in as them. */
const OTHER_READER = 'someoneEls';

/** Objects with an ACL: 10% readable by `userId` only, the rest by somebody else. */
export function secretSet(userId: string): DataSet {
  const reader = (i: number) => (i % READABLE_EVERY === 0 ? userId : OTHER_READER);
  const readerSql = `CASE WHEN i % ${READABLE_EVERY} = 0 THEN '${userId.replace(/'/g, "''")}' ELSE '${OTHER_READER}' END`;
  return {
    className: 'Secret',
    salt: 3,
    doc: (i) => ({ score: (i * SCORE_STEP) % SCORE_RANGE, name: `s${i}`, ACL: { [reader(i)]: { read: true } } }),
    docSql: `jsonb_build_object('score', (i * ${SCORE_STEP}) % ${SCORE_RANGE}, 'name', 's' || i, 'ACL', jsonb_build_object(${readerSql}, jsonb_build_object('read', true)))`,
    rperm: (i) => [reader(i)],
    rpermSql: `ARRAY[${readerSql}]`,
    wperm: () => [],
    wpermSql: `ARRAY[]::text[]`,
  };
}

/** The object the API should answer for object i of a data set. */
export function expectedObject(set: DataSet, i: number): Record<string, unknown> {
  const at = timestamp(i);
  return { ...set.doc(i), objectId: objectId(i, set.salt), createdAt: at, updatedAt: at };
}

export interface Seeder {
  /** Writes objects from … to-1 of the data set into its (existing) class table. */
  insert(set: DataSet, from: number, to: number): Promise<void>;
  /**
   * What the database would soon do by itself after a bulk load: PostgreSQL's autovacuum
   * analyzes (and vacuums) a table that grew this much within a minute, so the planner has
   * statistics. SQLite gathers none unless asked, and Basalt does not ask, so nothing there.
   */
  settle(className: string): Promise<void>;
  /** One stored document, for what the API never shows (a password hash). */
  document(className: string, objectId: string): Promise<Record<string, unknown> | undefined>;
  /** Safe to call twice: once when the suites are done, again by the cleanup list. */
  close(): Promise<void>;
}

/** Rows per transaction on SQLite: bounds the write-ahead log a bulk load grows. */
const SQLITE_CHUNK = 50_000;

/** The app's SQLite file: data/basalt.db maps the application id to its namespace. */
export function sqliteSeeder(dataDir: string): Seeder {
  const system = new Database(join(dataDir, 'basalt.db'), { readonly: true });
  const row = system.prepare('SELECT "namespace" FROM "apps" WHERE "applicationId" = ?').get(APP.id) as { namespace: string } | undefined;
  system.close();
  if (!row) throw new Error(`no app ${APP.id} in ${dataDir}/basalt.db`);
  const db = new Database(join(dataDir, 'apps', `${row.namespace}.db`));
  // The server has the file open too; its WAL mode lets both in, one writer at a time.
  db.pragma('busy_timeout = 10000');
  return {
    async insert(set, from, to) {
      const insert = db.prepare(
        `INSERT INTO "${set.className}" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data") VALUES (?, ?, ?, ?, ?, jsonb(?))`,
      );
      const chunk = db.transaction((start: number, end: number) => {
        for (let i = start; i < end; i++) {
          const at = timestamp(i);
          insert.run(objectId(i, set.salt), at, at, JSON.stringify(set.rperm(i)), JSON.stringify(set.wperm(i)), JSON.stringify(set.doc(i)));
        }
      });
      for (let start = from; start < to; start += SQLITE_CHUNK) {
        chunk(start, Math.min(to, start + SQLITE_CHUNK));
        // Lets a Ctrl-C be handled between chunks.
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async settle() {},
    async document(className, id) {
      const found = db.prepare(`SELECT json("data") AS "data" FROM "${className}" WHERE "objectId" = ?`).get(id) as { data: string } | undefined;
      return found ? (JSON.parse(found.data) as Record<string, unknown>) : undefined;
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

/** The app's PostgreSQL schema `app_<namespace>`, found through `basalt.apps`. */
export async function postgresSeeder(url: string): Promise<Seeder> {
  const client = new pg.Client({ connectionString: url });
  // Dropping the database at the end ends this connection from the server side; that is expected.
  client.on('error', () => {});
  await client.connect();
  let closed = false;
  try {
    const { rows } = await client.query<{ namespace: string }>('SELECT "namespace" FROM "basalt"."apps" WHERE "applicationId" = $1', [APP.id]);
    if (!rows[0]) throw new Error(`no app ${APP.id} in basalt.apps`);
    const schema = `app_${rows[0].namespace}`;
    const table = (className: string) => `"${schema}"."${className}"`;
    return {
      async insert(set, from, to) {
        await client.query(
          `INSERT INTO ${table(set.className)} ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data")
           SELECT ${objectIdSql('i', set.salt)}, ${timestampSql('i')}, ${timestampSql('i')}, ${set.rpermSql}, ${set.wpermSql}, ${set.docSql}
           FROM generate_series($1::bigint, $2::bigint - 1) AS "g"("i")`,
          [from, to],
        );
      },
      async settle(className) {
        await client.query(`VACUUM (ANALYZE) ${table(className)}`);
      },
      async document(className, id) {
        const found = await client.query<{ data: Record<string, unknown> }>(`SELECT "data" FROM ${table(className)} WHERE "objectId" = $1`, [id]);
        return found.rows[0]?.data;
      },
      async close() {
        if (closed) return;
        closed = true;
        await client.end();
      },
    };
  } catch (error) {
    await client.end();
    throw error;
  }
}
