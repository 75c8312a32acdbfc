import { ident } from '../params.ts';
import type { Migration } from '../migrations.ts';
import { listUpdatedAtIndexes } from '../updated-at-index.ts';
import { migrateReadLists } from './read-lists.ts';
import { addReaderIndexes } from '../reader-indexes.ts';

/**
 * SQLite's migrations (src/sql/migrations.ts): the system tables of `basalt.db`, and the tables
 * every app file has. Versions are shared with PostgreSQL's list (postgres/migrations.ts), which
 * creates the same tables in that database's types: a change is appended to both, under the same
 * number. Never edit an applied version.
 */
/** Keys compare byte by byte, as SQLite's TEXT does by default. */
const KEY = 'TEXT';

export const SYSTEM_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t('accounts')} ("id" ${KEY} PRIMARY KEY, "email" ${KEY} NOT NULL UNIQUE, "passwordHash" TEXT NOT NULL, "accountKey" ${KEY} NOT NULL UNIQUE, "createdAt" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('apps')} ("applicationId" ${KEY} PRIMARY KEY, "namespace" ${KEY} NOT NULL UNIQUE, "ownerId" ${KEY}, "appName" TEXT NOT NULL, "keys" TEXT NOT NULL, "settings" TEXT NOT NULL, "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('collaborators')} ("applicationId" ${KEY} NOT NULL, "accountId" ${KEY} NOT NULL, PRIMARY KEY ("applicationId", "accountId"))`,
    ],
  },
];

export const APP_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_SCHEMA')} ("className" ${KEY} PRIMARY KEY, "schema" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('_Join')} ("owningClass" ${KEY} NOT NULL, "owningField" ${KEY} NOT NULL, "owningId" ${KEY} NOT NULL, "relatedId" ${KEY} NOT NULL, PRIMARY KEY ("owningClass", "owningField", "owningId", "relatedId"))`,
    ],
  },
  {
    // Rate-limit counters shared by every process of the app (one row per limit and window).
    version: 2,
    statements: (t) => [`CREATE TABLE IF NOT EXISTS ${t('_Rate')} ("key" ${KEY} PRIMARY KEY, "window" BIGINT NOT NULL, "n" INTEGER NOT NULL)`],
  },
  {
    // X-Svc-Request-Id: the first answer to a request id, replayed to its repeats.
    version: 3,
    statements: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Idempotency')} ("requestId" ${KEY} PRIMARY KEY, "startedAt" BIGINT NOT NULL, "status" INTEGER, "body" TEXT)`,
    ],
  },
  {
    // Emailed links (verify_email, reset_password): only a SHA-256 of each token is kept, so a
    // copy of the database opens no account. Mail that could not go out by SMTP, or that has no
    // SMTP server to go to, waits in the outbox for the operator.
    version: 4,
    statements: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Token')} ("hash" ${KEY} PRIMARY KEY, "kind" ${KEY} NOT NULL, "userId" ${KEY} NOT NULL, "email" TEXT NOT NULL, "expiresAt" BIGINT NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Token_user')} ON ${t('_Token')} ("userId", "kind")`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Token_expiry')} ON ${t('_Token')} ("expiresAt")`,
      `CREATE TABLE IF NOT EXISTS ${t('_Outbox')} ("id" ${KEY} PRIMARY KEY, "createdAt" ${KEY} NOT NULL, "to" TEXT NOT NULL, "subject" TEXT NOT NULL, "text" TEXT NOT NULL, "html" TEXT, "status" ${KEY} NOT NULL, "error" TEXT)`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Outbox_created')} ON ${t('_Outbox')} ("createdAt")`,
    ],
  },
  {
    // Owners by member: the roles of a user (and the roles above a role) are looked up for every
    // session, and Relation constraints ({likes: Pointer}) ask the same question.
    version: 5,
    statements: (t) => [`CREATE INDEX IF NOT EXISTS ${ident('_Join_related')} ON ${t('_Join')} ("owningClass", "owningField", "relatedId")`],
  },
  {
    // The app's config (spec 2.9): one row per parameter, so that two writers setting different
    // parameters at once both keep their change. `value` is the parameter's JSON.
    version: 6,
    statements: (t) => [`CREATE TABLE IF NOT EXISTS ${t('_Config')} ("name" ${KEY} PRIMARY KEY, "value" TEXT NOT NULL, "masterKeyOnly" INTEGER NOT NULL)`],
  },
  {
    // Analytics events (spec 2.13, storage/sql-events.ts): every event in an append-only log, and counts
    // per event name, bucket and dimension pair, kept in step with the log; reads use only these.
    // Each event counts in its hour (`span` 1) and in its UTC day (`span` 24), `hour` being the
    // bucket's first hour since 1970. The log has no index besides its key, so an append stays
    // cheap; the counts' key makes the buckets of one chart a single range of the index.
    version: 7,
    // `id` is an alias of the rowid: no second index, and new rows go to the end of the table.
    // The counts live in their key's B-tree (WITHOUT ROWID): one tree to update instead of a
    // table and an index, and a range of the key reads neighbouring pages.
    statements: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Events')} ("id" INTEGER PRIMARY KEY, "name" ${KEY} NOT NULL, "at" TEXT NOT NULL, "dimensions" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('_EventCounts')} ("name" ${KEY} NOT NULL, "dimension" ${KEY} NOT NULL, "span" INTEGER NOT NULL, "hour" BIGINT NOT NULL, "value" ${KEY} NOT NULL, "count" BIGINT NOT NULL, PRIMARY KEY ("name", "dimension", "span", "hour", "value")) WITHOUT ROWID`,
    ],
  },
  {
    // The durable job queue (src/queue, storage/sql-jobs.ts): a job is written in the transaction
    // of the write that causes it, so it lives in the app's own namespace. `due` is when the job
    // may next be taken (for a running job: when its lease ends; NULL once dead), so one index
    // answers "what can be taken now" for pending jobs and for those of a process that died.
    // Times are milliseconds since 1970; `createdAt` and `updatedAt` are ISO text as elsewhere.
    version: 8,
    statements: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Jobs')} ("id" ${KEY} PRIMARY KEY, "type" ${KEY} NOT NULL, "payload" TEXT NOT NULL, "status" ${KEY} NOT NULL, "attempts" INTEGER NOT NULL, "maxAttempts" INTEGER NOT NULL, "runAt" BIGINT NOT NULL, "due" BIGINT, "lockedBy" TEXT, "lockedUntil" BIGINT, "lastError" TEXT, "createdAt" ${KEY} NOT NULL, "updatedAt" ${KEY} NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Jobs_due')} ON ${t('_Jobs')} ("due")`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Jobs_status')} ON ${t('_Jobs')} ("status", "createdAt", "id")`,
    ],
  },
  {
    // Class tables are made without an index on updatedAt; older ones keep theirs as a listed
    // schema index (updated-at-index.ts).
    version: 9,
    statements: () => [],
    run: listUpdatedAtIndexes,
  },
  {
    // Read permission lists without a comma keep one spelling, which the permission filter
    // compares by text (read-lists.ts).
    version: 10,
    statements: () => [],
    run: migrateReadLists,
  },
  {
    // A reader index beside every schema index that would have one today (reader-indexes.ts):
    // on SQLite, those over expressions led by a typed field.
    version: 11,
    statements: () => [],
    run: addReaderIndexes,
  },
  {
    // The same again: a database that ran 11 when it made none on SQLite gets them here; one that
    // ran today's 11 finds nothing left to make.
    version: 12,
    statements: () => [],
    run: addReaderIndexes,
  },
];
