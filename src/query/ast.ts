/**
 * The typed, frozen form of a query. `parseWhere` builds it from the wire JSON; `secure` adds the
 * caller's permission predicate; the SQL compiler turns it into one statement. Nothing here knows
 * about SQL or HTTP.
 */

/**
 * Where a value lives: a built-in column, or a path into the object's JSON document. `untyped`
 * says the schema does not fix what is stored there (a path into an Object, or a field of an
 * Array, Object or other structured type), so a read as text, number or boolean must first check
 * the stored JSON type: a number never equals a string, nor `true` the number 1.
 */
export type FieldRef =
  | { readonly kind: 'column'; readonly column: 'objectId' | 'createdAt' | 'updatedAt' }
  | {
      readonly kind: 'doc';
      readonly path: readonly string[];
      readonly untyped?: true;
      readonly stored?: StoredReading;
      /**
       * The field leads a schema index that has a reader index beside it (sql/compiler-pages.ts,
       * `readerPage`).
       */
      readonly leadsReaderIndex?: true;
    };

/**
 * The class table also keeps the field's reading as `as` in a column of its own (`column`),
 * which always equals the expression over the document: the compiler may read either.
 */
export interface StoredReading {
  readonly column: string;
  readonly as: ValueKind;
  /**
   * The indexes over the column also carry whether "*" may read the row: a query bounded by
   * the column may test that instead of the permission list (sql/compiler.ts).
   */
  readonly publicColumn?: true;
  /**
   * An index of the class is over the column alone (then objectId, the tie break): the entries of
   * one value are in objectId order.
   */
  readonly indexedAlone?: true;
}

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
  | { readonly kind: 'acl'; readonly access: 'read' | 'write'; readonly principals: readonly string[] }
  /**
   * `$regex`: a text field matches (or, with `element`, one element of the array field does); a
   * literal `^prefix` also becomes an index-friendly range.
   */
  | { readonly kind: 'regex'; readonly field: FieldRef; readonly pattern: RegexPattern; readonly element?: ElementOf }
  /**
   * `$inQuery` / `$select`: the field's value (or, for an array field, one of its elements) is
   * among the values another query selects. `$notInQuery` / `$dontSelect` wrap it in `not`.
   * `indexed`: an index of the class leads with the (top-level, typed) field, so a page in
   * objectId order may be built from one ordered read of the index per inner value.
   */
  | { readonly kind: 'inSubquery'; readonly field: FieldRef; readonly as: ValueKind; readonly element: ElementOf | null; readonly query: SubQuery; readonly indexed?: true }
  /**
   * The queried object's Relation `key` holds one of the objects `ids`, or one the inner query
   * finds: a Relation is queried like an array of Pointers (spec 2.2). `field` is the Relation's
   * field, for what reports on queries.
   */
  | { readonly kind: 'relationHolds'; readonly field: FieldRef; readonly owningClass: string; readonly key: string; readonly related: { readonly ids: readonly string[] } | { readonly query: SubQuery } }
  /** `$relatedTo`: the object is in relation `field` of the object `owningId` of `owningClass`. */
  | { readonly kind: 'relatedTo'; readonly owningClass: string; readonly owningId: string; readonly field: string; readonly ownerRead: readonly string[] | null }
  /** Every element of the array field is among `values` (`$containedBy`). */
  | { readonly kind: 'containedBy'; readonly field: FieldRef; readonly element: ElementOf; readonly values: readonly Scalar[] }
  /**
   * The GeoPoint field lies within `maxRadians` of a point (`$nearSphere`, `$centerSphere`).
   * `indexed`: an index of the class leads with the field, so a nearest-first page may be searched
   * for in growing rings rather than among every point within `maxRadians`.
   */
  | { readonly kind: 'geoWithinDistance'; readonly field: FieldRef; readonly point: LatLng; readonly maxRadians: number; readonly indexed?: true }
  /** The GeoPoint field lies in a box (`$within: {$box}`); `west > east` crosses the antimeridian. */
  | { readonly kind: 'geoWithinBox'; readonly field: FieldRef; readonly south: number; readonly west: number; readonly north: number; readonly east: number }
  /** The GeoPoint field lies inside a polygon (`$geoWithin: {$polygon}`). */
  | { readonly kind: 'geoWithinPolygon'; readonly field: FieldRef; readonly polygon: readonly LatLng[] }
  /** The Polygon field contains a point (`$geoIntersects: {$point}`). */
  | { readonly kind: 'polygonContains'; readonly field: FieldRef; readonly point: LatLng }
  /**
   * Full-text search: every one of `words` (lower case, see words.ts) is a word of the text field
   * (`$text: {$search}`). `index` names the class's text index on the field, when it has one.
   */
  | { readonly kind: 'text'; readonly field: FieldRef; readonly words: readonly string[]; readonly index?: TextIndexRef };

/** A text index of the schema API (`{"indexes": {name: {field: "text"}}}`) on a class. */
export interface TextIndexRef {
  readonly className: string;
  readonly name: string;
}

export interface LatLng {
  readonly latitude: number;
  readonly longitude: number;
}

/** How an array element is compared: as a scalar, or by a key of an object element (a Pointer's objectId). */
export interface ElementOf {
  readonly as: ValueKind;
  readonly subKey?: string;
}

/** An inner query; `secure` adds the caller's read permission to its `where`. */
export interface SubQuery {
  readonly className: string;
  readonly where: WhereNode;
  readonly select: FieldRef;
  readonly limit: number;
}

export interface RegexPattern {
  readonly source: string;
  readonly caseInsensitive: boolean;
  readonly multiline: boolean;
  readonly dotAll: boolean;
  readonly prefix: string | null;
  readonly prefixOnly: boolean;
}

export interface OrderKey {
  readonly field: FieldRef;
  readonly as: ValueKind | 'json';
  readonly descending: boolean;
  /** Sort by distance of the GeoPoint `field` from this point instead of by its value. */
  readonly distanceFrom?: LatLng;
}

export interface FindQuery {
  readonly where: WhereNode;
  readonly order: readonly OrderKey[];
  readonly limit: number;
  readonly skip: number;
  /** The index the caller asked the query to be read through (`hint`, query/hint.ts). */
  readonly hint?: IndexHint;
}

/**
 * An index of the queried class named by `hint`: a schema-API index (by the name the schema lists
 * it under), or the primary key on objectId (`_id_`, MongoDB's and so Parse's name for it).
 */
export type IndexHint = { readonly kind: 'primaryKey' } | { readonly kind: 'schemaIndex'; readonly name: string };

export const TRUE: WhereNode = Object.freeze({ kind: 'const', value: true });

/** Whether two references name the same column or the same path into the document. */
export function sameField(a: FieldRef, b: FieldRef): boolean {
  if (a.kind === 'column' || b.kind === 'column') return a.kind === 'column' && b.kind === 'column' && a.column === b.column;
  return a.path.length === b.path.length && a.path.every((segment, i) => segment === b.path[i]);
}

/** Whether `test` holds for the node or for any node within it, inner queries included. */
export function someNode(node: WhereNode, test: (node: WhereNode) => boolean): boolean {
  if (test(node)) return true;
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.nodes.some((child) => someNode(child, test));
    case 'not':
      return someNode(node.node, test);
    case 'inSubquery':
      return someNode(node.query.where, test);
    case 'relationHolds':
      return 'query' in node.related && someNode(node.related.query.where, test);
    default:
      return false;
  }
}

/** The parts of a where that must all hold, `and` within `and` flattened. */
export function conjuncts(node: WhereNode): readonly WhereNode[] {
  return node.kind === 'and' ? node.nodes.flatMap(conjuncts) : [node];
}

export function and(nodes: readonly WhereNode[]): WhereNode {
  const kept = nodes.filter((node) => !(node.kind === 'const' && node.value));
  if (kept.some((node) => node.kind === 'const' && !node.value)) return Object.freeze({ kind: 'const', value: false });
  if (kept.length === 0) return TRUE;
  if (kept.length === 1) return kept[0]!;
  return Object.freeze({ kind: 'and', nodes: Object.freeze(kept) });
}
