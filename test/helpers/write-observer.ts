import { appendFileSync } from 'node:fs';

/**
 * A write observer for test/api/write-pipeline.test.ts, loaded by the server under test with
 * `--test-write-observer`. It records every request it receives, one JSON line each, in the file
 * named by WRITE_OBSERVER_LOG, and acts by class name: `Refused…` classes refuse every save,
 * `Stamped…` classes get a field set by the observer, `Kept…` objects refuse deletion.
 */
interface Registry {
  on(point: string, className: string, observer: (request: Record<string, any>) => void | Promise<void>): void;
}

export default function register(hooks: Registry): void {
  const log = process.env.WRITE_OBSERVER_LOG;
  if (!log) throw new Error('WRITE_OBSERVER_LOG is not set');
  for (const point of ['beforeSave', 'afterSave', 'beforeDelete', 'afterDelete']) {
    hooks.on(point, '*', async (request) => {
      appendFileSync(log, `${JSON.stringify(request)}\n`);
      // An observer may await I/O: no row lock is held while it does.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (point === 'beforeSave' && request.className.startsWith('Refused')) throw new Error('refused by the observer');
      if (point === 'beforeDelete' && request.className.startsWith('Kept')) throw new Error('kept by the observer');
      if (point === 'beforeSave' && request.className.startsWith('Stamped')) {
        request.object.stamp = `stamped ${request.object.name ?? ''}`.trim();
        delete request.object.scratch;
      }
    });
  }
}
