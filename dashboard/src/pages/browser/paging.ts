import type { FieldType, ParseObject, Where } from '../../api/types.ts';

/**
 * Keyset paging: each page asks for the rows after the last one seen, in a total order of the sort
 * column and then objectId, so that page 5,000 costs what page 1 costs. `skip` is never used: a
 * database walks and drops every skipped row.
 *
 * Rows without a value in the sort column cannot be compared with `$gt`; they come after the rows
 * that have one, in a second phase ordered by objectId.
 */
export interface Sort {
  readonly field: string;
  readonly descending: boolean;
}

export const DEFAULT_SORT: Sort = { field: 'objectId', descending: false };

export type Phase = 'values' | 'missing';

export interface Cursor {
  readonly phase: Phase;
  /** The last row of the previous page: its value in the sort column and its objectId. */
  readonly after?: { readonly value: unknown; readonly objectId: string };
}

export const FIRST_PAGE: Cursor = { phase: 'values' };

/** The columns a page may be sorted by: those of a type with an order the backends agree on. */
export function sortable(type: FieldType | 'id' | 'timestamp'): boolean {
  return type === 'id' || type === 'timestamp' || type === 'String' || type === 'Number' || type === 'Boolean' || type === 'Date';
}

/** createdAt and updatedAt are answered as ISO text but compared as Dates. */
function queryValue(field: string, value: unknown): unknown {
  if ((field === 'createdAt' || field === 'updatedAt') && typeof value === 'string') return { __type: 'Date', iso: value };
  return value;
}

export function pageQuery(filter: Where, sort: Sort, cursor: Cursor): { where: Where; order: string } {
  const clauses: Where[] = Object.keys(filter).length ? [filter] : [];
  const gt = sort.descending ? '$lt' : '$gt';
  const byId = sort.field === 'objectId';
  if (byId || cursor.phase === 'missing') {
    if (!byId) clauses.push({ [sort.field]: { $exists: false } });
    if (cursor.after) clauses.push({ objectId: { [byId ? gt : '$gt']: cursor.after.objectId } });
    const order = byId ? (sort.descending ? '-objectId' : 'objectId') : 'objectId';
    return { where: combine(clauses), order };
  }
  const timestamps = sort.field === 'createdAt' || sort.field === 'updatedAt';
  if (!timestamps) clauses.push({ [sort.field]: { $exists: true } });
  if (cursor.after) {
    const value = queryValue(sort.field, cursor.after.value);
    clauses.push({ $or: [{ [sort.field]: { [gt]: value } }, { [sort.field]: value, objectId: { [gt]: cursor.after.objectId } }] });
  }
  const sign = sort.descending ? '-' : '';
  return { where: combine(clauses), order: `${sign}${sort.field},${sign}objectId` };
}

/** The cursor after a page; null when there is nothing more to read. */
export function nextCursor(sort: Sort, cursor: Cursor, page: readonly ParseObject[], pageSize: number): Cursor | null {
  const last = page[page.length - 1];
  if (page.length < pageSize || !last) {
    // The values are done; the rows without one are next, unless the sort needs no second phase.
    const needsMissingPhase = cursor.phase === 'values' && hasMissingPhase(sort);
    return needsMissingPhase ? { phase: 'missing' } : null;
  }
  const value = cursor.phase === 'missing' ? undefined : last[sort.field];
  return { phase: cursor.phase, after: { value, objectId: last.objectId } };
}

function combine(clauses: Where[]): Where {
  if (clauses.length === 0) return {};
  if (clauses.length === 1) return clauses[0]!;
  return { $and: clauses };
}

/** Whether the order has a second phase for rows without a value in the sort column. */
function hasMissingPhase(sort: Sort): boolean {
  return sort.field !== 'objectId' && sort.field !== 'createdAt' && sort.field !== 'updatedAt';
}

/**
 * The queries that read the end of the order, last row first, without reading what comes before
 * it: the order reversed. The last rows are those of the second phase (no value, by objectId), so
 * those come first, read by objectId descending; then the values phase with the sort reversed. The
 * caller reads them in turn until it holds a page, and reverses what it got.
 */
export function tailQueries(filter: Where, sort: Sort): { where: Where; order: string }[] {
  const clauses: Where[] = Object.keys(filter).length ? [filter] : [];
  const reversed = pageQuery(filter, { field: sort.field, descending: !sort.descending }, FIRST_PAGE);
  if (!hasMissingPhase(sort)) return [reversed];
  return [{ where: combine([...clauses, { [sort.field]: { $exists: false } }]), order: '-objectId' }, reversed];
}
