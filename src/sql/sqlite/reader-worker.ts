import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { registerFunctions } from './functions.ts';
import { PROGRESS_INDEX, PROGRESS_STARTED, type ReadAnswer, type ReaderRead, type ReaderReply, type ReaderRequest } from './readers.ts';

/**
 * One reader thread (readers.ts): read-only connections to the app files it is asked about,
 * opened on first use, each with its own prepared statements. Every statement runs to its end and
 * is reset by better-sqlite3, so no read transaction stays open between requests: the next one
 * starts a new WAL snapshot and sees every commit made before it was sent.
 */
interface Connection {
  readonly db: Database.Database;
  readonly statements: Map<string, { readonly statement: Database.Statement<unknown[], unknown[]>; readonly columns: readonly string[] }>;
}

const connections = new Map<string, Connection>();
/** Statements kept prepared per connection, as the main connection keeps (driver.ts). */
const STATEMENTS_KEPT = 2000;

function connection(file: string): Connection {
  let open = connections.get(file);
  if (!open) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    // A reader waits only when the WAL index is being rebuilt or restarted; the writer never blocks it.
    db.pragma('busy_timeout = 5000');
    registerFunctions(db);
    open = { db, statements: new Map() };
    connections.set(file, open);
  }
  return open;
}

function prepared(open: Connection, sql: string) {
  let entry = open.statements.get(sql);
  if (!entry) {
    const statement = open.db.prepare(sql) as Database.Statement<unknown[], unknown[]>;
    if (!statement.reader) throw Object.assign(new Error('a reader runs only statements that return rows'), { code: 'BASALT_NOT_A_READ' });
    statement.raw(true);
    if (open.statements.size >= STATEMENTS_KEPT) open.statements.clear();
    entry = { statement, columns: statement.columns().map((column) => column.name) };
    open.statements.set(sql, entry);
  }
  return entry;
}

function answer(read: ReaderRead): ReadAnswer {
  const started = performance.now();
  try {
    const { statement, columns } = prepared(connection(read.file), read.sql);
    const rows = statement.all(...read.params);
    return { id: read.id, columns, rows, ms: performance.now() - started };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { id: read.id, error: { code: typeof code === 'string' ? code : undefined, message: String(message ?? error) }, ms: performance.now() - started };
  }
}

/** Shared with the pool (readers.ts): which read of the batch runs, and since when. */
const progress = (workerData as { progress: Int32Array }).progress;

parentPort!.on('message', (request: ReaderRequest) => {
  if (request.kind === 'forget') {
    connections.get(request.file)?.db.close();
    connections.delete(request.file);
    return;
  }
  const answers: ReadAnswer[] = [];
  request.reads.forEach((read, index) => {
    // The start first: a pool that sees the new index sees its start too.
    Atomics.store(progress, PROGRESS_STARTED, Math.max(0, Date.now() - request.sentAt));
    Atomics.store(progress, PROGRESS_INDEX, index);
    answers.push(answer(read));
  });
  parentPort!.postMessage({ answers } satisfies ReaderReply);
});

parentPort!.postMessage({ ready: true } satisfies ReaderReply);
