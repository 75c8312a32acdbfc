import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { assertClassName } from '../../schema/names.ts';
import type { ElementOf, SubQuery, ValueKind, WhereNode } from '../ast.ts';
import { fieldAccess } from '../fields.ts';
import { innerScope, MAX_QUERY_NESTING, type QueryScope } from '../scope.ts';
import { access, FALSE, isArrayField, isPointer, isRelation, negate, relationHolds, TRUE, type Target } from '../target.ts';

export const SUBQUERY_OPERATORS = new Set(['$inQuery', '$notInQuery', '$select', '$dontSelect']);
export const DEFAULT_INNER_LIMIT = 100;
export const MAX_INNER_LIMIT = 1000;

type ParseInner = (where: unknown, scope: QueryScope) => WhereNode;

/**
 * `$inQuery`/`$notInQuery` (a pointer refers to an object the inner query finds) and
 * `$select`/`$dontSelect` (a value equals the `key` of an object the inner query finds). The
 * inner query becomes a sub-select of the same statement; `secure` limits it to what the caller
 * may read, and it takes spec 4.2's limit (default 100, at most 1000).
 */
export function parseSubquery(target: Target, op: string, operand: unknown, scope: QueryScope, parseInner: ParseInner): WhereNode {
  if (scope.nesting >= MAX_QUERY_NESTING) throw Errors.invalidQuery(`Inner queries may nest at most ${MAX_QUERY_NESTING} levels deep.`);
  const selecting = op === '$select' || op === '$dontSelect';
  let spec: Record<string, unknown>;
  let key = 'objectId';
  if (selecting) {
    if (!isPlainObject(operand) || !isPlainObject(operand.query) || typeof operand.key !== 'string') throw Errors.invalidQuery(`${op} needs {query: {className, where}, key}.`);
    spec = operand.query;
    key = operand.key;
  } else {
    if (!isPlainObject(operand)) throw Errors.invalidQuery(`${op} needs {className, where}.`);
    spec = operand;
  }
  if (typeof spec.className !== 'string') throw Errors.invalidQuery(`${op} needs a className.`);
  assertClassName(spec.className);
  const innerSchema = scope.schemaOf(spec.className);
  const limit = innerLimit(spec.limit);
  const where = parseInner(spec.where ?? {}, innerScope(scope, innerSchema, false));
  const positive = op === '$inQuery' || op === '$select';
  if (!innerSchema || !target.known) return positive ? FALSE : TRUE;

  const selected = fieldAccess(key, Object.hasOwn(innerSchema.fields, key) ? innerSchema.fields[key] : undefined);
  if (selected.field.kind === 'doc' && !Object.hasOwn(innerSchema.fields, key)) return positive ? FALSE : TRUE;
  if (isRelation(target) && !selecting) {
    const holds = target.type?.targetClass === spec.className ? relationHolds(target, { query: { className: spec.className, where, select: selected.field, limit } }) : FALSE;
    return positive ? holds : negate(holds);
  }
  const outer = access(target);
  let as: ValueKind;
  let element: ElementOf | null = null;
  if (isArrayField(target)) {
    // An array of pointers: one element refers to a found object.
    as = selecting ? asKind(selected.as) : 'text';
    element = selecting ? { as } : { as: 'text', subKey: 'objectId' };
  } else if (selecting) {
    // A field that holds one kind of value (string, number, boolean) never equals a key that
    // holds another: a number 1 is neither "1" nor true. Reading either as the other's kind
    // would cast (and fail on PostgreSQL) or compare what SQLite stores alike (1 and true).
    if (outer.as !== 'json' && selected.as !== 'json' && outer.as !== selected.as) return positive ? FALSE : TRUE;
    as = outer.as !== 'json' ? outer.as : asKind(selected.as);
  } else {
    if (target.type?.type !== 'Pointer' && target.name !== 'objectId') throw Errors.invalidQuery(`${op} needs a Pointer field; ${target.name} is not one.`);
    as = 'text';
  }
  const field = outer.field;
  const query: SubQuery = { className: spec.className, where, select: selected.field, limit };
  const indexed = positive && element === null && outer.as !== 'json' && leadsAnIndex(scope, target);
  const node: WhereNode = { kind: 'inSubquery', field, as, element, query, ...(indexed ? { indexed: true } : {}) };
  return positive ? node : negate(node);
}

/** An ordinary index of the class has the top-level field as its first key. */
function leadsAnIndex(scope: QueryScope, target: Target): boolean {
  if (target.subPath.length > 0) return false;
  return Object.values(scope.schema?.indexes ?? {}).some((keys) => {
    const first = Object.entries(keys)[0];
    return first !== undefined && first[0] === target.name && first[1] !== 'text';
  });
}

function asKind(as: ValueKind | 'json'): ValueKind {
  return as === 'json' ? 'text' : as;
}

function innerLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_INNER_LIMIT;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw Errors.invalidLimit('The limit of an inner query must be a whole number from 0 to 1000.');
  return Math.min(value, MAX_INNER_LIMIT);
}

/** `$relatedTo: {object: Pointer, key}`: members of a relation of one object. */
export function parseRelatedTo(operand: unknown, scope: QueryScope): WhereNode {
  if (!isPlainObject(operand) || !isPointer(operand.object) || typeof operand.key !== 'string') {
    throw Errors.invalidQuery('$relatedTo needs {object: Pointer, key: "<relation field>"}.');
  }
  assertClassName(operand.object.className);
  const owner = scope.schemaOf(operand.object.className);
  const relation = owner && Object.hasOwn(owner.fields, operand.key) ? owner.fields[operand.key] : undefined;
  if (!relation || relation.type !== 'Relation' || relation.targetClass !== scope.schema?.className) return FALSE;
  return { kind: 'relatedTo', owningClass: operand.object.className, owningId: operand.object.objectId, field: operand.key, ownerRead: null };
}
