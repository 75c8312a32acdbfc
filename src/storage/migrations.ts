import type { SqlCompiler } from '../sql/compiler.ts';
import { ident } from '../sql/params.ts';

/**
 * Versioned migrations. System migrations create the account and app tables once per database;
 * app migrations create the tables every app namespace has. Each runs once, in order, inside a
 * transaction that holds a lock, so several processes starting at once apply it exactly once.
 * Append new versions; never edit an applied one.
 */
export interface Migration {
  readonly version: number;
  readonly statements: (d: SqlCompiler, table: (name: string) => string) => string[];
}

export const SYSTEM_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (d, t) => [
      `CREATE TABLE IF NOT EXISTS ${t('accounts')} ("id" ${d.keyType} PRIMARY KEY, "email" ${d.keyType} NOT NULL UNIQUE, "passwordHash" TEXT NOT NULL, "accountKey" ${d.keyType} NOT NULL UNIQUE, "createdAt" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('apps')} ("applicationId" ${d.keyType} PRIMARY KEY, "namespace" ${d.keyType} NOT NULL UNIQUE, "ownerId" ${d.keyType}, "appName" TEXT NOT NULL, "keys" TEXT NOT NULL, "settings" TEXT NOT NULL, "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('collaborators')} ("applicationId" ${d.keyType} NOT NULL, "accountId" ${d.keyType} NOT NULL, PRIMARY KEY ("applicationId", "accountId"))`,
    ],
  },
];

export const APP_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (d, t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_SCHEMA')} ("className" ${d.keyType} PRIMARY KEY, "schema" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('_Join')} ("owningClass" ${d.keyType} NOT NULL, "owningField" ${d.keyType} NOT NULL, "owningId" ${d.keyType} NOT NULL, "relatedId" ${d.keyType} NOT NULL, PRIMARY KEY ("owningClass", "owningField", "owningId", "relatedId"))`,
    ],
  },
  {
    // Rate-limit counters shared by every process of the app (one row per limit and window).
    version: 2,
    statements: (d, t) => [`CREATE TABLE IF NOT EXISTS ${t('_Rate')} ("key" ${d.keyType} PRIMARY KEY, "window" BIGINT NOT NULL, "n" INTEGER NOT NULL)`],
  },
  {
    // X-Svc-Request-Id: the first answer to a request id, replayed to its repeats.
    version: 3,
    statements: (d, t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Idempotency')} ("requestId" ${d.keyType} PRIMARY KEY, "startedAt" BIGINT NOT NULL, "status" INTEGER, "body" TEXT)`,
    ],
  },
  {
    // Emailed links (verify_email, reset_password): only a SHA-256 of each token is kept, so a
    // copy of the database opens no account. Mail that could not go out by SMTP, or that has no
    // SMTP server to go to, waits in the outbox for the operator.
    version: 4,
    statements: (d, t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Token')} ("hash" ${d.keyType} PRIMARY KEY, "kind" ${d.keyType} NOT NULL, "userId" ${d.keyType} NOT NULL, "email" TEXT NOT NULL, "expiresAt" BIGINT NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Token_user')} ON ${t('_Token')} ("userId", "kind")`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Token_expiry')} ON ${t('_Token')} ("expiresAt")`,
      `CREATE TABLE IF NOT EXISTS ${t('_Outbox')} ("id" ${d.keyType} PRIMARY KEY, "createdAt" ${d.keyType} NOT NULL, "to" TEXT NOT NULL, "subject" TEXT NOT NULL, "text" TEXT NOT NULL, "html" TEXT, "status" ${d.keyType} NOT NULL, "error" TEXT)`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Outbox_created')} ON ${t('_Outbox')} ("createdAt")`,
    ],
  },
  {
    // Owners by member: the roles of a user (and the roles above a role) are looked up for every
    // session, and Relation constraints ({likes: Pointer}) ask the same question.
    version: 5,
    statements: (_d, t) => [`CREATE INDEX IF NOT EXISTS ${ident('_Join_related')} ON ${t('_Join')} ("owningClass", "owningField", "relatedId")`],
  },
  {
    // The app's config (spec 2.9): one row per parameter, so that two writers setting different
    // parameters at once both keep their change. `value` is the parameter's JSON.
    version: 6,
    statements: (d, t) => [`CREATE TABLE IF NOT EXISTS ${t('_Config')} ("name" ${d.keyType} PRIMARY KEY, "value" TEXT NOT NULL, "masterKeyOnly" INTEGER NOT NULL)`],
  },
  {
    // Analytics events (spec 2.13, sql-events.ts): every event in an append-only log, and counts
    // per event name, bucket and dimension pair, kept in step with the log; reads use only these.
    // Each event counts in its hour (`span` 1) and in its UTC day (`span` 24), `hour` being the
    // bucket's first hour since 1970. The log has no index besides its key, so an append stays
    // cheap; the counts' key makes the buckets of one chart a single range of the index.
    version: 7,
    statements: (d, t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Events')} ("id" ${d.generatedKeyColumn}, "name" ${d.keyType} NOT NULL, "at" TEXT NOT NULL, "dimensions" TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${t('_EventCounts')} ("name" ${d.keyType} NOT NULL, "dimension" ${d.keyType} NOT NULL, "span" INTEGER NOT NULL, "hour" BIGINT NOT NULL, "value" ${d.keyType} NOT NULL, "count" BIGINT NOT NULL, PRIMARY KEY ("name", "dimension", "span", "hour", "value"))${d.clusteredByKey}`,
    ],
  },
  {
    // The durable job queue (src/queue, storage/sql-jobs.ts): a job is written in the transaction
    // of the write that causes it, so it lives in the app's own namespace. `due` is when the job
    // may next be taken (for a running job: when its lease ends; NULL once dead), so one index
    // answers "what can be taken now" for pending jobs and for those of a process that died.
    // Times are milliseconds since 1970; `createdAt` and `updatedAt` are ISO text as elsewhere.
    version: 8,
    statements: (d, t) => [
      `CREATE TABLE IF NOT EXISTS ${t('_Jobs')} ("id" ${d.keyType} PRIMARY KEY, "type" ${d.keyType} NOT NULL, "payload" TEXT NOT NULL, "status" ${d.keyType} NOT NULL, "attempts" INTEGER NOT NULL, "maxAttempts" INTEGER NOT NULL, "runAt" BIGINT NOT NULL, "due" BIGINT, "lockedBy" TEXT, "lockedUntil" BIGINT, "lastError" TEXT, "createdAt" ${d.keyType} NOT NULL, "updatedAt" ${d.keyType} NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Jobs_due')} ON ${t('_Jobs')} ("due")`,
      `CREATE INDEX IF NOT EXISTS ${ident('_Jobs_status')} ON ${t('_Jobs')} ("status", "createdAt", "id")`,
    ],
  },
];

export const LATEST_APP_VERSION = APP_MIGRATIONS[APP_MIGRATIONS.length - 1]!.version;
