/**
 * The typed, frozen form of an aggregate pipeline (GET /1/aggregate/<className>). The parser
 * (aggregate/parse.ts) folds the MongoDB-style stages into a list of levels, each read from the
 * one before it (the first from the class table); sql/aggregate.ts writes one statement of
 * nested SELECTs from them. Nothing here knows about SQL or HTTP.
 */
import type { FieldRef, OrderKey, ValueKind, WhereNode } from '../ast.ts';

/** What an output field of a `$group` holds: how a later stage reads it and how it is rendered. */
export type OutputType = 'String' | 'Number' | 'Boolean' | 'Date';

/** A value read from a row of the level below: a field with its reading and type. */
export interface ValueRef {
  readonly field: FieldRef;
  readonly as: ValueKind;
  readonly type: OutputType;
}

/**
 * One output field of a `$group`. `count` counts the rows of the group, `times` times (`$sum: 1`,
 * `$sum: 2`, `$count: {}`). A `value` of null is a field no row holds (not in the schema): a sum
 * of it is 0 and the others are null, as MongoDB answers.
 */
export type Accumulator =
  | { readonly name: string; readonly op: 'count'; readonly times: number }
  | { readonly name: string; readonly op: 'sum' | 'avg' | 'min' | 'max'; readonly value: ValueRef | null; readonly type: OutputType };

/** Rows of the level below kept by `where`, in `order`, `skip` of them passed and at most `limit` taken. */
export interface RowsLevel {
  readonly kind: 'rows';
  readonly where: WhereNode;
  readonly order: readonly OrderKey[];
  readonly skip: number;
  readonly limit: number | null;
}

/**
 * One row per value of `key` (one row in all when `key` is null and there is a row at all),
 * shaped as a document: the key under `keyName`, each accumulator under its name. Later levels
 * read that document as they read a class's (`data`), so `$match` after `$group` goes through the
 * same parser and compiler as any query.
 */
export interface GroupLevel {
  readonly kind: 'group';
  /** null: `_id: null`, or a field no row holds (not in the schema): every row in one group, key null. */
  readonly key: ValueRef | null;
  readonly keyName: string;
  readonly accumulators: readonly Accumulator[];
}

export type Level = RowsLevel | GroupLevel;

/** Which fields of a class's objects are answered (`$project` on documents). */
export interface DocumentProjection {
  /** `include`: only `keys`; `exclude`: all but `keys`; `all`: everything. */
  readonly mode: 'all' | 'include' | 'exclude';
  readonly keys: readonly string[];
  readonly objectId: boolean;
  readonly createdAt: boolean;
  readonly updatedAt: boolean;
}

/** What the last level's rows are, and which of their fields are answered. */
export type AggregateOutput =
  | { readonly kind: 'documents'; readonly projection: DocumentProjection }
  /** `fields`: the answered fields of the group document in order; `keyName` (null after `$count`) is answered as `objectId`. */
  | { readonly kind: 'grouped'; readonly keyName: string | null; readonly fields: readonly { readonly name: string; readonly type: OutputType }[] };

export interface AggregatePlan {
  readonly levels: readonly Level[];
  readonly output: AggregateOutput;
  /** A `$match` runs a regular expression no index answers (the query is throttled as finds are). */
  readonly regex: boolean;
}

/**
 * `distinct=<key>`: the distinct values of a field among the objects `where` keeps. `scalar`: a
 * typed top-level field, read as `as`; `elements`: the elements of an Array field (unwound, as
 * Parse Server does on MongoDB and PostgreSQL); `json`: a value of no fixed type (an Object
 * field, or a dot path into one), compared as JSON.
 */
export type DistinctQuery =
  | { readonly kind: 'scalar'; readonly where: WhereNode; readonly value: ValueRef; readonly pointerClass: string | null; readonly regex: boolean }
  | { readonly kind: 'elements' | 'json'; readonly where: WhereNode; readonly path: readonly string[]; readonly regex: boolean };
