/**
 * The typed, frozen form of a query. `parseWhere` builds it from the wire JSON; `secure` adds the
 * caller's permission predicate; the SQL compiler turns it into one statement. Nothing here knows
 * about SQL or HTTP.
 */

/** Where a value lives: a built-in column, or a path into the object's JSON document. */
export type FieldRef =
  | { readonly kind: 'column'; readonly column: 'objectId' | 'createdAt' | 'updatedAt' }
  | { readonly kind: 'doc'; readonly path: readonly string[] };

/** How a value is compared: the SQL type the field is read as. */
export type ValueKind = 'text' | 'number' | 'boolean';

export type Scalar = string | number | boolean;

export type CompareOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

export type WhereNode =
  | { readonly kind: 'and'; readonly nodes: readonly WhereNode[] }
  | { readonly kind: 'or'; readonly nodes: readonly WhereNode[] }
  | { readonly kind: 'not'; readonly node: WhereNode }
  | { readonly kind: 'const'; readonly value: boolean }
  | { readonly kind: 'compare'; readonly field: FieldRef; readonly op: CompareOp; readonly value: Scalar; readonly as: ValueKind }
  | { readonly kind: 'in'; readonly field: FieldRef; readonly values: readonly Scalar[]; readonly as: ValueKind }
  | { readonly kind: 'exists'; readonly field: FieldRef }
  | { readonly kind: 'isNull'; readonly field: FieldRef }
  /** The array at `field` holds an element equal to `value` (JSON), or whose `subKey` equals it. */
  | { readonly kind: 'arrayContains'; readonly field: FieldRef; readonly value: Scalar; readonly as: ValueKind; readonly subKey?: string }
  /** Deep equality of a JSON object or array value. */
  | { readonly kind: 'jsonEquals'; readonly field: FieldRef; readonly json: string }
  /** The object's read (or write) permission list shares an entry with `principals`. */
  | { readonly kind: 'acl'; readonly access: 'read' | 'write'; readonly principals: readonly string[] };

export interface OrderKey {
  readonly field: FieldRef;
  readonly as: ValueKind | 'json';
  readonly descending: boolean;
}

export interface FindQuery {
  readonly where: WhereNode;
  readonly order: readonly OrderKey[];
  readonly limit: number;
  readonly skip: number;
}

export const TRUE: WhereNode = Object.freeze({ kind: 'const', value: true });

export function and(nodes: readonly WhereNode[]): WhereNode {
  const kept = nodes.filter((node) => !(node.kind === 'const' && node.value));
  if (kept.some((node) => node.kind === 'const' && !node.value)) return Object.freeze({ kind: 'const', value: false });
  if (kept.length === 0) return TRUE;
  if (kept.length === 1) return kept[0]!;
  return Object.freeze({ kind: 'and', nodes: Object.freeze(kept) });
}
