import type { ClassSchema } from '../schema/types.ts';
import type { OrderKey } from './ast.ts';

/** `$or`/`$and`/`$nor` and inner queries inside one another, at most this deep. */
export const MAX_QUERY_NESTING = 32;
/** Values in one query: each binds a parameter, and SQLite takes at most 32,766 per statement. */
export const MAX_QUERY_TERMS = 10_000;

/** What parsing one `where` needs to know, and the facts it gathers on the way. */
export interface QueryScope {
  readonly schema: ClassSchema | null;
  /** Schemas of other classes, for inner queries. */
  readonly schemaOf: (className: string) => ClassSchema | null;
  readonly nesting: number;
  /** Inside a branch of `$or`/`$and`/`$nor`, where geo constraints are not allowed (spec 4.2). */
  readonly inBranch: boolean;
  readonly budget: { terms: number };
  /** Set by `$nearSphere`: results sort by distance unless `order` says otherwise. */
  readonly found: { nearest: OrderKey | null; regex: boolean };
}

export function rootScope(schema: ClassSchema | null, schemaOf: (className: string) => ClassSchema | null): QueryScope {
  return { schema, schemaOf, nesting: 0, inBranch: false, budget: { terms: 0 }, found: { nearest: null, regex: false } };
}

export function innerScope(parent: QueryScope, schema: ClassSchema | null, branch: boolean): QueryScope {
  return { ...parent, schema, nesting: parent.nesting + 1, inBranch: parent.inBranch || branch };
}
