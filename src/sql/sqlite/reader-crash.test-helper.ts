import { parentPort } from 'node:worker_threads';

// A reader thread (reader-worker.ts) that ends itself when asked to run `SELECT 'crash'`: the
// pool's handling of a thread that dies mid-read is tested with it (readers.test.ts). Listening
// first, it ends the thread before the reader's own listener runs; the pool sends no read before
// the reader says it is ready, so none is missed while that one loads.
parentPort!.on('message', (request: { kind: string; sql?: string }) => {
  if (request.kind === 'read' && request.sql === `SELECT 'crash'`) process.exit(3);
});
await import('./reader-worker.ts');
