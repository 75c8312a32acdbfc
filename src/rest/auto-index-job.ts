import type { Backend } from '../sql/backend.ts';
import { PermanentJobError, type JobType } from '../queue/types.ts';
import { fieldOf } from '../schema/definition.ts';
import { textIndexField } from '../schema/indexes.ts';
import { DEFAULT_FIELDS, type ClassSchema } from '../schema/types.ts';
import { autoIndexesAllowed, autoIndexName, automaticIndexes, type AutoIndexRequest } from './auto-index.ts';
import { indexKeys } from './schemas.ts';
import { whileIndexing } from './scan-gate.ts';

/**
 * The `autoIndex` job (enqueued by auto-index.ts): builds the index a class's scans asked for,
 * then records it in the schema as automatic. Every process may have asked for it, and a retry
 * may follow a build that got halfway, so the whole runs under a lock shared by every process on
 * the database (not waited for: see PostgresDriver.withSessionLockIfFree; a busy lock is a retry
 * later) and decides afresh from the stored schema: an index that exists by then (made by
 * another process, or by hand) ends the job, so the index is made once. Failures are retried by
 * the queue, and a job that keeps failing stays visible as dead (GET /1/queue/jobs?status=dead).
 */
export function autoIndexJob(backend: Pick<Backend, 'exclusiveIfFree'>, maxPerClass: number): JobType<AutoIndexRequest> {
  return {
    parse(payload) {
      const { className, field, direction } = (payload ?? {}) as Partial<Record<keyof AutoIndexRequest, unknown>>;
      if (typeof className !== 'string' || typeof field !== 'string' || (direction !== 1 && direction !== -1)) {
        throw new PermanentJobError('autoIndex: the payload must have className, field and direction (1 or -1)');
      }
      return { className, field, direction };
    },
    async run({ className, field, direction }, { app, log }) {
      const name = autoIndexName(field);
      const ran = await backend.exclusiveIfFree(indexBuildLock(app.record.applicationId, className), async () => {
        // Read from the database, not this process's cache: another process may have just made it.
        const schema = await app.schemas.store.load(className);
        const reason = refusal(schema, field, name, maxPerClass) ?? (autoIndexesAllowed(app.record.settings) ? null : 'the app turned automatic indexes off');
        if (reason) {
          log.info({ className, field, reason }, `No automatic index on ${className}.${field}: ${reason}.`);
          return;
        }
        const started = Date.now();
        const type = fieldOf(schema!.fields, field);
        // The class's scans go one at a time until the schema lists the index (scan-gate.ts).
        await whileIndexing(app.record.applicationId, className, async () => {
          const built = await app.schemas.store.buildIndexOnline(className, name, indexKeys(field, type, direction === -1), schema!.privateRows === true);
          const createdAt = new Date().toISOString();
          await app.schemas.change(
            className,
            (current) => {
              // The class or the field went while the index was built: the index went with them.
              if (!current || !hasField(current.fields, field) || Object.hasOwn(current.indexes, name)) return current;
              return { ...current, indexes: { ...current.indexes, [name]: { [field]: direction } }, autoIndexes: { ...current.autoIndexes, [name]: { createdAt } } };
            },
            // Only now do queries read the columns: they hold every row's reading, and the index is
            // valid. Recorded even with neither: the step has the class checked for private rows.
            () => [{ kind: 'recordIndex', name, columns: built.columns, reader: built.reader }],
          );
        });
        log.warn({ applicationId: app.record.applicationId, className, index: name, keys: { [field]: direction }, ms: Date.now() - started }, `Created the automatic index ${name} on ${className} for queries that kept scanning it.`);
      });
      // Another process is building an index of the class: the retry finds what it made.
      if (!ran) throw new Error(`another process is building an automatic index of ${className}`);
    },
  };
}

/** The lock under which one process at a time builds indexes of a class (this job, reader-index-job.ts). */
export function indexBuildLock(applicationId: string, className: string): string {
  return `auto-index:${applicationId}:${className}`;
}

/** A field of the class's own, or one every class has (updatedAt, which has no index from the start). */
function hasField(fields: ClassSchema['fields'], field: string): boolean {
  return fieldOf(fields, field) !== undefined || Object.hasOwn(DEFAULT_FIELDS, field);
}

/** Why no index is to be made now, or null when it is. */
function refusal(schema: ClassSchema | null, field: string, name: string, maxPerClass: number): string | null {
  if (!schema) return 'the class no longer exists';
  if (!hasField(schema.fields, field) || fieldOf(schema.fields, field)?.type === 'Relation') return 'the field no longer exists';
  if (Object.hasOwn(schema.indexes, name)) return `the class has an index named ${name} already`;
  for (const keys of Object.values(schema.indexes)) {
    if (Object.keys(keys)[0] === field && textIndexField(keys) === null) return 'an index on the field exists already';
  }
  const count = automaticIndexes(schema).length;
  if (count >= maxPerClass) return `the class has ${count} automatic indexes, the most allowed (--auto-index-max-per-class)`;
  return null;
}
