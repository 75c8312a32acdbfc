import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { registerFunctions } from './functions.ts';
import type { ReaderReply, ReaderRequest } from './readers.ts';

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

function answer(request: Extract<ReaderRequest, { kind: 'read' }>): ReaderReply {
  try {
    const { statement, columns } = prepared(connection(request.file), request.sql);
    return { id: request.id, columns, rows: statement.all(...request.params) };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { id: request.id, error: { code: typeof code === 'string' ? code : undefined, message: String(message ?? error) } };
  }
}

parentPort!.on('message', (request: ReaderRequest) => {
  if (request.kind === 'forget') {
    connections.get(request.file)?.db.close();
    connections.delete(request.file);
    return;
  }
  parentPort!.postMessage(answer(request));
});

parentPort!.postMessage({ ready: true } satisfies ReaderReply);
