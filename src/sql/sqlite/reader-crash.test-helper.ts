import { parentPort, workerData } from 'node:worker_threads';
import { PROGRESS_INDEX } from './readers.ts';

// A reader thread (reader-worker.ts) that ends itself when asked to run `SELECT 'crash'`: the
// pool's handling of a thread that dies mid-read is tested with it (readers.test.ts). Listening
// first, it ends the thread before the reader's own listener runs; the pool sends no read before
// the reader says it is ready, so none is missed while that one loads.
parentPort!.on('message', (request: { kind: string; reads?: { sql: string }[] }) => {
  const at = request.reads?.findIndex((read) => read.sql === `SELECT 'crash'`) ?? -1;
  if (at < 0) return;
  // As a thread that dies inside that read would leave its progress record.
  Atomics.store((workerData as { progress: Int32Array }).progress, PROGRESS_INDEX, at);
  process.exit(3);
});
await import('./reader-worker.ts');
