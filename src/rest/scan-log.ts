import { sameField, TRUE, type FieldRef, type OrderKey, type ValueKind, type WhereNode } from '../query/ast.ts';
import { fieldAccess } from '../query/fields.ts';
import type { ClassSchema } from '../schema/types.ts';
import { textIndexField } from '../schema/indexes.ts';
import { builtinIndexedFields } from '../schema/builtin.ts';
import type { RequestContext } from './context.ts';
import { limitsOf } from './limits.ts';
import { noteIndexWanted } from './auto-index.ts';

/**
 * Queries that scan a large table because no index serves them: logged, and counted per app,
 * class and suggested index for GET /1/scans (and the dashboard). The check is cheap enough for
 * every query: a walk over the query's AST against the class schema, and, only for a query no
 * index serves, a size probe per class at most once a minute.
 */

export type IndexSuggestion = Readonly<Record<string, 1 | -1 | 'text'>>;

export interface Coverage {
  /** An index (a built-in one, or one of the schema's) can answer the filter, or the order when there is no filter. */
  readonly served: boolean;
  /** The single-field index that would serve the query, when one would. */
  readonly suggestion: IndexSuggestion | null;
}

/**
 * The built-in columns indexed from the start. Not updatedAt (sql/updated-at-index.ts): its
 * index is a schema index, made by hand or automatically.
 */
const BUILT_IN = new Set(['objectId', 'createdAt']);
/** A table is probed again after this long, so growth is noticed without counting on every query. */
const PROBE_EVERY_MS = 60_000;
/** The probe reads up to this many index entries; larger settings are lowered to it. */
export const MAX_SCAN_WARNING_ROWS = 1_000_000;
/** One log line per app, class and suggestion per minute at most: a hot query must not flood the log. */
const LOG_EVERY_MS = 60_000;
/** Distinct (class, suggestion) entries kept per app; the least recently seen goes first. */
const MAX_ENTRIES = 1000;

interface Candidate {
  readonly field: string;
  readonly equality: boolean;
  readonly direction: 1 | -1 | 'text';
}

interface NodeCoverage {
  readonly served: boolean;
  readonly candidate: Candidate | null;
}

const UNSERVED: NodeCoverage = Object.freeze({ served: false, candidate: null });
const SERVED: NodeCoverage = Object.freeze({ served: true, candidate: null });

/**
 * Whether an index can serve a query on the class: some conjunct of the filter is an equality,
 * range, `$in`, `^prefix` regex or inner query on the leading field of an index, or a `$text`
 * its field's text index serves (every branch of an `$or` must be); with no filter, the first
 * sort key must lead an index. The check is static,
 * so it also holds for the first query on a new class, before any statistics exist.
 */
export function coverage(where: WhereNode, order: readonly OrderKey[], schema: ClassSchema): Coverage {
  const leading = new Set([...BUILT_IN, ...builtinIndexedFields(schema.className)]);
  for (const keys of Object.values(schema.indexes)) {
    const first = Object.keys(keys)[0];
    // A text index answers `$text` alone (the parser marks those nodes), not lookups or sorts.
    if (first && textIndexField(keys) === null) leading.add(first);
  }
  const sort = orderCoverage(order[0], schema, leading);
  if (where.kind === 'const' && where.value) return { served: sort.served, suggestion: suggestion(sort.candidate) };
  const filter = nodeCoverage(where, schema, leading);
  if (filter.served) return { served: true, suggestion: null };
  // Failing an index for the filter, one on the sort key lets the database stop at the limit.
  return { served: false, suggestion: suggestion(filter.candidate ?? (sort.served ? null : sort.candidate)) };
}

function suggestion(candidate: Candidate | null): IndexSuggestion | null {
  return candidate ? { [candidate.field]: candidate.direction } : null;
}

function nodeCoverage(node: WhereNode, schema: ClassSchema, leading: ReadonlySet<string>): NodeCoverage {
  const on = (field: FieldRef, as: ValueKind, equality: boolean): NodeCoverage => {
    const name = indexableField(field, as, schema);
    return name ? { served: leading.has(name), candidate: { field: name, equality, direction: 1 } } : UNSERVED;
  };
  switch (node.kind) {
    case 'const':
      // `1=0` reads nothing; `1=1` inside a branch filters nothing.
      return node.value ? UNSERVED : SERVED;
    case 'compare':
      return node.op === 'ne' ? UNSERVED : on(node.field, node.as, node.op === 'eq');
    case 'in':
      return on(node.field, node.as, true);
    case 'regex':
      // Only a case-sensitive `^prefix` becomes a range an index can answer (sql/compiler.ts).
      return node.pattern.prefix ? on(node.field, 'text', false) : UNSERVED;
    case 'inSubquery':
      return node.element ? UNSERVED : on(node.field, node.as, true);
    case 'relatedTo':
    case 'relationHolds':
      // `objectId IN (…the relation table…)`: the primary key.
      return SERVED;
    case 'text': {
      if (node.index) return SERVED;
      const name = indexableField(node.field, 'text', schema);
      const isString = name !== null && Object.hasOwn(schema.fields, name) && schema.fields[name]!.type === 'String';
      return isString ? { served: false, candidate: { field: name, equality: false, direction: 'text' } } : UNSERVED;
    }
    case 'geoWithinDistance':
    case 'geoWithinBox':
    case 'geoWithinPolygon': {
      // Each is preceded by a box that seeks a GeoPoint index (sql/geo.ts); π or more has no box.
      if (node.kind === 'geoWithinDistance' && node.maxRadians >= Math.PI) return UNSERVED;
      const name = node.field.kind === 'doc' && node.field.path.length === 1 ? node.field.path[0]! : null;
      return name ? { served: leading.has(name), candidate: { field: name, equality: false, direction: 1 } } : UNSERVED;
    }
    case 'and': {
      const parts = node.nodes.map((part) => nodeCoverage(part, schema, leading));
      const candidate = parts.find((part) => part.candidate?.equality)?.candidate ?? parts.find((part) => part.candidate)?.candidate ?? null;
      return { served: parts.some((part) => part.served), candidate };
    }
    case 'or': {
      const parts = node.nodes.map((part) => nodeCoverage(part, schema, leading));
      const unserved = parts.find((part) => !part.served);
      return unserved ? { served: false, candidate: unserved.candidate } : SERVED;
    }
    default:
      // Negations, existence, array and JSON equality, polygon values and the ACL read every row.
      return UNSERVED;
  }
}

function orderCoverage(key: OrderKey | undefined, schema: ClassSchema, leading: ReadonlySet<string>): NodeCoverage {
  // Without `order`, results come in objectId order: the primary key.
  if (!key) return SERVED;
  if (key.distanceFrom || key.as === 'json') return UNSERVED;
  const name = indexableField(key.field, key.as, schema);
  if (!name) return UNSERVED;
  // A one-field index serves either direction.
  return { served: leading.has(name), candidate: { field: name, equality: false, direction: key.descending ? -1 : 1 } };
}

/**
 * The field a schema-API index on which would hold exactly the expression the compiler reads here
 * (src/query/fields.ts builds both), or null: a dotted path or an Object field has none.
 */
function indexableField(field: FieldRef, as: ValueKind, schema: ClassSchema): string | null {
  if (field.kind === 'column') return field.column;
  const name = field.path[0]!;
  const type = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
  if (!type || type.type === 'Relation') return null;
  const access = fieldAccess(name, type);
  if (access.as !== as || access.field.kind !== 'doc') return null;
  return sameField(access.field, field) ? name : null;
}

function fieldsOf(node: WhereNode, schema: ClassSchema): string[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.nodes.flatMap((part) => fieldsOf(part, schema));
    case 'not':
      return fieldsOf(node.node, schema);
    case 'const':
    case 'acl':
      return [];
    case 'relatedTo':
      return ['$relatedTo'];
    default:
      return [keyOf(node.field, schema)];
  }
}

/** The key as the client wrote it: `due` rather than the `due.iso` a Date is read from. */
function keyOf(field: FieldRef, schema: ClassSchema): string {
  if (field.kind === 'column') return field.column;
  const name = field.path[0]!;
  const type = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
  const access = fieldAccess(name, type);
  return access.field.kind === 'doc' && access.field.path.length === field.path.length ? name : field.path.join('.');
}

interface SizeProbe {
  readonly threshold: number;
  readonly at: number;
  readonly large: Promise<boolean>;
}

export interface ScanEntry {
  readonly className: string;
  readonly index: IndexSuggestion | null;
  count: number;
  lastSeenAt: string;
  loggedAt: number;
}

/** Per process, by application id. Several processes each count what they served. */
const sizes = new Map<string, Map<string, SizeProbe>>();
const scans = new Map<string, Map<string, ScanEntry>>();

/**
 * Logs and counts a query on `className` that no index serves, when the class holds more rows
 * than the app's `rateLimits.scanWarningRows` (10,000 by default). Never fails the query.
 * Resolves whether an index serves it, which holds as long as the schema does.
 */
export async function noteScan(ctx: RequestContext, className: string, schema: ClassSchema, where: WhereNode, order: readonly OrderKey[]): Promise<boolean> {
  const found = coverage(where, order, schema);
  if (found.served) return true;
  const threshold = Math.min(limitsOf(ctx).scanWarningRows, MAX_SCAN_WARNING_ROWS);
  if (!(await isLarge(ctx, className, threshold))) return false;
  record(ctx, { className, schema, where, order }, found.suggestion, threshold);
  return false;
}

/**
 * Whether the class holds more than `threshold` rows. `LIMIT 1 OFFSET threshold` in objectId
 * order walks the primary key and stops there, so the probe costs the same on a table of ten
 * thousand rows as on one of a billion, where `count(*)` would read it all.
 */
function isLarge(ctx: RequestContext, className: string, threshold: number): Promise<boolean> {
  const appId = ctx.app.record.applicationId;
  let classes = sizes.get(appId);
  if (!classes) sizes.set(appId, (classes = new Map()));
  const now = Date.now();
  const cached = classes.get(className);
  if (cached && cached.threshold === threshold && now - cached.at < PROBE_EVERY_MS) return cached.large;
  const large = ctx.app.store.find(className, { where: TRUE, order: [], limit: 1, skip: threshold }).then(
    (rows) => rows.length > 0,
    // A class dropped meanwhile is not large; the query itself reports what went wrong.
    () => false,
  );
  classes.set(className, { threshold, at: now, large });
  return large;
}

interface ScanningQuery {
  readonly className: string;
  readonly schema: ClassSchema;
  readonly where: WhereNode;
  readonly order: readonly OrderKey[];
}

function record(ctx: RequestContext, query: ScanningQuery, index: IndexSuggestion | null, threshold: number): void {
  const { className, schema } = query;
  const appId = ctx.app.record.applicationId;
  let entries = scans.get(appId);
  if (!entries) scans.set(appId, (entries = new Map()));
  const key = `${className}\u0000${JSON.stringify(index)}`;
  let entry = entries.get(key);
  if (entry) entries.delete(key);
  else {
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entry = { className, index, count: 0, lastSeenAt: '', loggedAt: 0 };
  }
  // Re-inserted, so the map's first entry is always the least recently seen.
  entries.set(key, entry);
  const now = Date.now();
  entry.count += 1;
  entry.lastSeenAt = new Date(now).toISOString();
  // Not awaited: the query that tips the count has its answer without waiting for the enqueue.
  if (index) void noteIndexWanted(ctx, className, index);
  if (now - entry.loggedAt < LOG_EVERY_MS) return;
  entry.loggedAt = now;
  const advice = index ? `an index ${JSON.stringify(index)} would serve it` : 'no single-field index would serve its filter';
  const where = [...new Set(fieldsOf(query.where, schema))];
  const order = query.order.map((key) => describeOrder(key, schema));
  ctx.log.warn(
    { applicationId: appId, className, where, order, index, rowsOver: threshold, count: entry.count },
    `A query on ${className} scans a table of more than ${threshold} rows without an index; ${advice}.`,
  );
}

function describeOrder(key: OrderKey, schema: ClassSchema): string {
  return `${key.descending ? '-' : ''}${keyOf(key.field, schema)}${key.distanceFrom ? ' (distance)' : ''}`;
}

/** The scans this process has seen for the app (GET /1/scans, scan-list.ts). */
export function scanEntries(appId: string): readonly Readonly<ScanEntry>[] {
  return [...(scans.get(appId)?.values() ?? [])];
}
