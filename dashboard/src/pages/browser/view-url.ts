import type { Filter, FilterOp } from './filters.ts';
import { OP_LABELS } from './filters.ts';
import { DEFAULT_SORT, type Sort } from './paging.ts';

/**
 * A class view's filters and sort as the query of its URL:
 * `?sort=-score&filter=score.lt.10&filter=done.eq.true`. The value is the rest after the second
 * dot, so it may hold dots itself.
 */
export function viewFromUrl(search: string = location.search): { filters: Filter[]; sort: Sort } {
  const params = new URLSearchParams(search);
  const sortParam = params.get('sort');
  const sort = sortParam ? { field: sortParam.replace(/^-/, ''), descending: sortParam.startsWith('-') } : DEFAULT_SORT;
  const filters: Filter[] = [];
  for (const text of params.getAll('filter')) {
    const [field, op, ...rest] = text.split('.');
    if (field && op && op in OP_LABELS) filters.push({ field, op: op as FilterOp, value: rest.join('.') });
  }
  return { filters, sort };
}

export function viewSearch(filters: readonly Filter[], sort: Sort): string {
  const params = new URLSearchParams();
  if (sort.field !== DEFAULT_SORT.field || sort.descending !== DEFAULT_SORT.descending) params.set('sort', `${sort.descending ? '-' : ''}${sort.field}`);
  for (const filter of filters) params.append('filter', `${filter.field}.${filter.op}.${filter.value}`);
  const search = params.toString();
  return search ? `?${search}` : '';
}

/** Replaces (not pushes) the URL: each filter is not a page of the history. */
export function viewToUrl(filters: readonly Filter[], sort: Sort): void {
  const search = viewSearch(filters, sort);
  if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}`);
}
