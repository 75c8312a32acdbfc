import type { Backend } from '../sql/backend.ts';
import { PermanentJobError, type JobType } from '../queue/types.ts';
import { indexBuildLock } from './auto-index-job.ts';

/** The payload of a `readerIndexes` job (queued by apps/registry.ts, `privateRowsOf`). */
export interface ReaderIndexRequest {
  readonly className: string;
}

/**
 * The `readerIndexes` job: a row "*" may not read was written to a class whose schema does not
 * yet say it holds one (schema/types.ts, `privateRows`), so its schema indexes get the reader
 * indexes a user's page reads (docs/architecture.md, "Reader indexes"). They are built online,
 * as an automatic index is, under the same lock, then recorded with the class's mark; the schema
 * change makes any still missing (an index made meanwhile) in its own transaction. A retry, or a
 * job of another process, finds the mark and ends.
 */
export function readerIndexJob(backend: Pick<Backend, 'exclusiveIfFree'>): JobType<ReaderIndexRequest> {
  return {
    parse(payload) {
      const { className } = (payload ?? {}) as Partial<Record<keyof ReaderIndexRequest, unknown>>;
      if (typeof className !== 'string') throw new PermanentJobError('readerIndexes: the payload must have className');
      return { className };
    },
    async run({ className }, { app, log }) {
      const ran = await backend.exclusiveIfFree(indexBuildLock(app.record.applicationId, className), async () => {
        // From the database, not this process's cache: another process may have marked it.
        const schema = await app.schemas.store.load(className);
        if (!schema || schema.privateRows) return;
        const started = Date.now();
        await app.schemas.store.buildReaderIndexesOnline(className);
        const saved = await app.schemas.change(
          className,
          (current) => (current && !current.privateRows ? { ...current } : current),
          () => [{ kind: 'privateRows' }],
        );
        log.info({ applicationId: app.record.applicationId, className, readerIndexes: saved?.readerIndexes ?? [], ms: Date.now() - started }, `${className} holds objects not everyone may read: its indexes now have reader indexes.`);
      });
      if (!ran) throw new Error(`another process is building an index of ${className}`);
    },
  };
}
