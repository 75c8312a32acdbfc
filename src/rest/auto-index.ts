import type { AppSettings } from '../apps/types.ts';
import type { ClassSchema } from '../schema/types.ts';
import { textIndexField } from '../schema/indexes.ts';
import type { RequestContext } from './context.ts';

/**
 * Automatic indexes: when an app's queries keep scanning a large class for want of an index on
 * one field, Basalt makes that index itself (docs/api.md "Scans", docs/architecture.md
 * "Automatic indexes"). This half decides, per process, from the scans the scan log sees; the job
 * of auto-index-job.ts builds the index, once, under a lock shared by every process.
 */

export const AUTO_INDEX_JOB = 'autoIndex';

/** Automatic index names start with this: a name the schema API can hold, and that tells them apart at a glance. */
export const AUTO_INDEX_PREFIX = 'auto_';

export function autoIndexName(field: string): string {
  return `${AUTO_INDEX_PREFIX}${field}`;
}

/** The app setting `autoIndexes`: on unless set to false. */
export function autoIndexesAllowed(settings: AppSettings): boolean {
  return settings.autoIndexes !== false;
}

/** The payload of an `autoIndex` job: the one-field index the scans asked for. */
export interface AutoIndexRequest {
  readonly className: string;
  readonly field: string;
  readonly direction: 1 | -1;
}

interface Window {
  startedAt: number;
  count: number;
  /** When this process last enqueued the job: at most once a window, whatever the job then decided. */
  requestedAt: number;
}

/** Per process, by app, class and field. Each process counts the scans it served. */
const windows = new Map<string, Window>();
/** Fields tracked at most, over all apps; the least recently started window goes first. */
const MAX_WINDOWS = 10_000;

/**
 * Counts one scanning query that an index on one field would serve, and enqueues the job that
 * makes it when the field has been needed `scans` times within the window. A text suggestion is
 * left to the operator: a text index is kept in step by every write, a cost to choose knowingly.
 */
export async function noteIndexWanted(ctx: RequestContext, className: string, suggestion: Readonly<Record<string, 1 | -1 | 'text'>>): Promise<void> {
  const options = ctx.limits.autoIndex;
  if (!options.enabled || !autoIndexesAllowed(ctx.app.record.settings)) return;
  if (textIndexField(suggestion) !== null) return;
  const [field, direction] = Object.entries(suggestion)[0] as [string, 1 | -1];
  const key = `${ctx.app.record.applicationId}\u0000${className}\u0000${field}`;
  const now = Date.now();
  let window = windows.get(key);
  if (!window || now - window.startedAt > options.windowMs) {
    if (window) windows.delete(key);
    else if (windows.size >= MAX_WINDOWS) windows.delete(windows.keys().next().value!);
    window = { startedAt: now, count: 0, requestedAt: window?.requestedAt ?? 0 };
    windows.set(key, window);
  }
  window.count += 1;
  if (window.count < options.scans || now - window.requestedAt <= options.windowMs) return;
  window.requestedAt = now;
  const request: AutoIndexRequest = { className, field, direction };
  try {
    const { step } = ctx.app.jobs.enqueueStep({ type: AUTO_INDEX_JOB, payload: request });
    await ctx.app.store.runSteps([step]);
    ctx.log.info({ applicationId: ctx.app.record.applicationId, className, field, scans: window.count, windowMs: options.windowMs }, `Queries on ${className} keep scanning for want of an index on ${field}; an automatic index is requested.`);
  } catch (error) {
    // The query has its answer; the next window asks again.
    window.requestedAt = 0;
    ctx.log.warn({ className, field, err: error instanceof Error ? error.message : String(error) }, 'An automatic index could not be requested.');
  }
}

/** The automatic indexes of a class, with the field and direction each is on. */
export function automaticIndexes(schema: ClassSchema): { name: string; keys: Readonly<Record<string, 1 | -1 | 'text'>>; createdAt: string }[] {
  return Object.entries(schema.autoIndexes ?? {})
    .filter(([name]) => Object.hasOwn(schema.indexes, name))
    .map(([name, info]) => ({ name, keys: schema.indexes[name]!, createdAt: info.createdAt }));
}
