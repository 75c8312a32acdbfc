import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointReply, CheckpointRequest } from './checkpointer.ts';

/**
 * The checkpoint thread (checkpointer.ts): a connection of its own to each app file it is asked
 * about, opened on first use. A checkpoint needs to write the database file, so the connection
 * is not read-only; it runs no other statement.
 */
const connections = new Map<string, Database.Database>();

function connection(file: string): Database.Database {
  let db = connections.get(file);
  if (!db) {
    db = new Database(file, { fileMustExist: true });
    connections.set(file, db);
  }
  return db;
}

parentPort!.on('message', (request: CheckpointRequest) => {
  if (request.kind === 'close') {
    for (const db of connections.values()) db.close();
    connections.clear();
    parentPort!.close();
    return;
  }
  if (request.kind === 'forget') {
    connections.get(request.file)?.close();
    connections.delete(request.file);
    parentPort!.postMessage({ id: request.id, forgotten: true } satisfies CheckpointReply);
    return;
  }
  try {
    // PASSIVE copies what it can and never waits for the writer or a reader.
    const [result] = connection(request.file).pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    parentPort!.postMessage({ id: request.id, log: result?.log ?? 0, checkpointed: result?.checkpointed ?? 0 } satisfies CheckpointReply);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: String((error as { message?: unknown }).message ?? error) } satisfies CheckpointReply);
  }
});
