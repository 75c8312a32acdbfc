import { someNode, type FindQuery, type OrderKey, type WhereNode } from '../query/ast.ts';
import type { ParsedQuery } from '../query/parse.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { KnownShape } from './query-shapes.ts';

/**
 * The parse of a query's text and, per caller, the secured statement it becomes, kept for the
 * schemas it was made against. A changed schema (fields, class-level permissions, indexes) is a
 * new map of schemas (SchemaService), so nothing made against the old one is found again. Both
 * steps are pure functions of what the keys hold: the parse of the `where`, `order` and class
 * text and the schemas; the secured query of the caller's read principals (roles included), user
 * id, class-level grants and session restriction. Inner queries ($inQuery, $select …) are
 * guarded by their class's permissions alone, which the schemas and the caller decide, so they
 * are kept too; a `$relatedTo` may be guarded by reading the object that holds the relation, as
 * it is at each request, so a query holding one is never kept secured.
 */
export interface PlannedText {
  readonly parsed: ParsedQuery;
  readonly order: readonly OrderKey[];
  /** Secured queries by caller key (`securedKey`). */
  readonly secured: Map<string, SecuredQuery>;
  /** Set once an index of these schemas is known to serve the query (rest/scan-log.ts): no scan to note. */
  served?: boolean;
  /** The shape the text was put together from (query-shapes.ts), which learns `served` with it, and the text's numbers. */
  shape?: KnownShape;
  numbers?: readonly number[];
}

export interface SecuredQuery {
  readonly find: FindQuery | null;
  readonly count: WhereNode | null;
}

/** Longer query texts are parsed each time: a key that long costs what it saves. */
const MAX_KEY_LENGTH = 2048;
/** Query texts kept per schema map; past it, the text least recently kept goes. */
const MAX_TEXTS = 1024;
const MAX_CALLERS = 64;

const bySchemas = new WeakMap<ReadonlyMap<string, ClassSchema>, Map<string, PlannedText>>();

/** The key of a query's text, or null when it is not kept (not plain strings, or too long). */
export function textKey(className: string, where: unknown, order: unknown): string | null {
  if ((where !== undefined && typeof where !== 'string') || (order !== undefined && typeof order !== 'string')) return null;
  const key = `${className}\u0000${where ?? ''}\u0000${order ?? ''}`;
  return key.length > MAX_KEY_LENGTH ? null : key;
}

export function plannedText(schemas: ReadonlyMap<string, ClassSchema>, key: string): PlannedText | undefined {
  return bySchemas.get(schemas)?.get(key);
}

export function keepText(schemas: ReadonlyMap<string, ClassSchema>, key: string, parsed: ParsedQuery, order: readonly OrderKey[]): PlannedText {
  let texts = bySchemas.get(schemas);
  if (!texts) bySchemas.set(schemas, (texts = new Map()));
  // One text out, not all: an app cycling through a few more texts than the limit (a page per
  // value of a range) would otherwise find none of them again.
  if (texts.size >= MAX_TEXTS) texts.delete(texts.keys().next().value!);
  const planned: PlannedText = { parsed, order, secured: new Map() };
  texts.set(key, planned);
  return planned;
}

export function keepSecured(planned: PlannedText, key: string, secured: SecuredQuery): void {
  if (planned.secured.size >= MAX_CALLERS) planned.secured.clear();
  planned.secured.set(key, secured);
}

/**
 * Everything of the caller and the page that the secured query depends on. `restricted`: the
 * caller's session is restricted, which narrows its inner queries on `_Session` (spec 5 rule 5).
 * `hint`: the index the statements are read through (query/hint.ts `hintKey`).
 */
export function securedKey(read: readonly string[] | null, userId: string | null, findFields: readonly string[] | null | undefined, countFields: readonly string[] | null | undefined, limit: number, skip: number, restricted: boolean, hint: string): string {
  const fields = (list: readonly string[] | null | undefined) => (list === undefined ? '-' : list === null ? '*' : list.join('\u0001'));
  return [read === null ? '(master)' : read.join('\u0001'), userId ?? '', fields(findFields), fields(countFields), limit, skip, restricted ? 'r' : '', hint].join('\u0000');
}

/** Whether securing the query reads objects (the holder of a `$relatedTo`, at any depth), as they are at each request. */
export function guardReadsObjects(node: WhereNode): boolean {
  return someNode(node, (inner) => inner.kind === 'relatedTo');
}
