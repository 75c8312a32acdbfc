import { Errors } from '../errors/index.ts';
import { isPlainObject, normalizeIso } from '../encoding/values.ts';
import type { ClassSchema, FieldType } from '../schema/types.ts';
import { and, type CompareOp, type FieldRef, type OrderKey, type Scalar, type ValueKind, type WhereNode } from './ast.ts';
import { fieldAccess } from './fields.ts';

const FALSE: WhereNode = Object.freeze({ kind: 'const', value: false });
const TRUE: WhereNode = Object.freeze({ kind: 'const', value: true });
const SEGMENT = /^[A-Za-z0-9_]+$/;
const COMPARISONS = new Map<string, CompareOp>([['$lt', 'lt'], ['$lte', 'lte'], ['$gt', 'gt'], ['$gte', 'gte'], ['$ne', 'ne'], ['$eq', 'eq']]);
/** `$or`/`$and`/`$nor` inside one another; the parser and the SQL it builds recurse this deep. */
export const MAX_QUERY_NESTING = 32;
/** Nesting of one operand; stored values nest at most 64 levels, operators add a few around them. */
const MAX_OPERAND_DEPTH = 100;
/** Constraints in one query: each binds a parameter, and SQLite takes at most 32,766 per statement. */
export const MAX_QUERY_TERMS = 10_000;
/** NUL and unpaired surrogates: PostgreSQL cannot take them as text or jsonb, and no stored string holds them. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * `where` JSON → WhereNode, resolved against the class schema so each constraint knows how its
 * field is stored. Malformed input is refused here (102 for a bad operator or operand, 105 for a
 * bad key), so the compiler only ever sees well-formed, typed nodes.
 */
export function parseWhere(where: unknown, schema: ClassSchema | null): WhereNode {
  const budget = { terms: 0 };
  return parseQuery(where, schema, 0, budget);
}

function parseQuery(where: unknown, schema: ClassSchema | null, nesting: number, budget: { terms: number }): WhereNode {
  if (where === undefined || where === null) return TRUE;
  if (!isPlainObject(where)) throw Errors.invalidQuery('where must be a JSON object.');
  if (nesting > MAX_QUERY_NESTING) throw Errors.invalidQuery(`Sub-queries ($or, $and, $nor) may nest at most ${MAX_QUERY_NESTING} levels deep.`);
  const nodes: WhereNode[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === '$or' || key === '$and' || key === '$nor') {
      if (!Array.isArray(value) || value.length === 0) throw Errors.invalidQuery(`${key} needs a non-empty array of queries.`);
      const parts = value.map((part) => parseQuery(part, schema, nesting + 1, budget));
      if (key === '$and') nodes.push(and(parts));
      else if (key === '$or') nodes.push({ kind: 'or', nodes: parts });
      else nodes.push({ kind: 'not', node: { kind: 'or', nodes: parts } });
      continue;
    }
    if (key.startsWith('$')) throw Errors.invalidQuery(`Unknown top-level operator ${JSON.stringify(key.slice(0, 80))}.`);
    budget.terms += assertOperand(value, JSON.stringify(key.slice(0, 80)));
    if (budget.terms > MAX_QUERY_TERMS) throw Errors.invalidQuery(`A query may hold at most ${MAX_QUERY_TERMS} values.`);
    nodes.push(parseField(key, value, schema));
  }
  return and(nodes);
}

/**
 * Checks what a constraint compares against before it can reach SQL, and counts its values:
 * nesting is bounded (JSON.stringify and both databases' JSON parsers recurse), numbers are
 * finite, and strings hold nothing PostgreSQL cannot take.
 */
function assertOperand(operand: unknown, key: string): number {
  let terms = 0;
  const pending: [unknown, number][] = [[operand, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (depth > MAX_OPERAND_DEPTH) throw Errors.invalidQuery(`The value compared with ${key} nests more than ${MAX_OPERAND_DEPTH} levels deep.`);
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) throw Errors.invalidQuery(`The value compared with ${key} holds a NUL character or an unpaired surrogate.`);
      terms += 1;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw Errors.invalidQuery(`The value compared with ${key} is not a finite number.`);
      terms += 1;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push([item, depth + 1]);
    } else if (isPlainObject(value)) {
      for (const [name, item] of Object.entries(value)) {
        if (UNSTORABLE.test(name)) throw Errors.invalidQuery(`A key compared with ${key} holds a NUL character or an unpaired surrogate.`);
        pending.push([item, depth + 1]);
      }
    } else {
      terms += 1;
    }
  }
  return Math.max(terms, 1);
}

interface Target {
  readonly name: string;
  /** The schema type of the top-level field, if the class has it. */
  readonly type: FieldType | undefined;
  /** Path below the top-level field (dot notation into objects). */
  readonly subPath: readonly string[];
  readonly known: boolean;
}

function resolveTarget(key: string, schema: ClassSchema | null): Target {
  const segments = key.split('.');
  if (!segments.every((segment) => SEGMENT.test(segment))) throw Errors.invalidKeyName(`Invalid key in query: ${JSON.stringify(key.slice(0, 80))}.`);
  const name = segments[0]!;
  const builtIn = name === 'objectId' || name === 'createdAt' || name === 'updatedAt';
  // Own fields only: "constructor" or "toString" are field names like any other, not inherited methods.
  const type = builtIn || !schema || !Object.hasOwn(schema.fields, name) ? undefined : schema.fields[name];
  return { name, type, subPath: segments.slice(1), known: builtIn || type !== undefined };
}

function parseField(key: string, value: unknown, schema: ClassSchema | null): WhereNode {
  const target = resolveTarget(key, schema);
  if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
    return and(Object.entries(value).map(([op, operand]) => parseConstraint(target, op, operand, value)));
  }
  return equality(target, value);
}

function parseConstraint(target: Target, op: string, operand: unknown, all: Record<string, unknown>): WhereNode {
  const cmp = COMPARISONS.get(op);
  if (cmp) {
    if (cmp === 'eq') return equality(target, operand);
    if (cmp === 'ne') {
      const eq = equality(target, operand);
      return eq.kind === 'const' ? { kind: 'const', value: !eq.value } : { kind: 'not', node: eq };
    }
    return comparison(target, cmp, operand);
  }
  switch (op) {
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand)) throw Errors.invalidQuery(`${op} needs an array.`);
      const any: WhereNode = operand.length === 0 ? FALSE : { kind: 'or', nodes: operand.map((item) => equality(target, item)) };
      return op === '$in' ? any : negate(any);
    }
    case '$exists': {
      if (typeof operand !== 'boolean') throw Errors.invalidQuery('$exists needs true or false.');
      if (!target.known) return operand ? FALSE : TRUE;
      const node: WhereNode = { kind: 'exists', field: access(target).field };
      return operand ? node : { kind: 'not', node };
    }
    case '$all': {
      if (!Array.isArray(operand)) throw Errors.invalidQuery('$all needs an array.');
      return and(operand.map((item) => equality(target, item)));
    }
    case '$options':
      if (!('$regex' in all)) throw Errors.invalidQuery('$options is only valid with $regex.');
      return TRUE;
    default:
      throw Errors.invalidQuery(`Unknown or unsupported operator ${JSON.stringify(op.slice(0, 80))} on ${target.name}.`);
  }
}

function negate(node: WhereNode): WhereNode {
  return node.kind === 'const' ? { kind: 'const', value: !node.value } : { kind: 'not', node };
}

function access(target: Target): { field: FieldRef; as: ValueKind | 'json' } {
  const base = fieldAccess(target.name, target.type);
  if (target.subPath.length === 0) return base;
  return { field: { kind: 'doc', path: [target.name, ...target.subPath] }, as: 'json' };
}

/** A query value reduced to what is stored at the compared path. */
function scalarOf(target: Target, value: unknown): { value: Scalar; as: ValueKind } | null {
  if (isPlainObject(value)) {
    if (value.__type === 'Date') return { value: normalizeIso(value.iso, target.name), as: 'text' };
    if (value.__type === 'Pointer' && typeof value.objectId === 'string') return { value: value.objectId, as: 'text' };
    return null;
  }
  if (typeof value === 'string') return { value, as: 'text' };
  if (typeof value === 'number' && Number.isFinite(value)) return { value, as: 'number' };
  if (typeof value === 'boolean') return { value, as: 'boolean' };
  return null;
}

function equality(target: Target, value: unknown): WhereNode {
  if (value === null) return target.known ? { kind: 'not', node: { kind: 'exists', field: access(target).field } } : TRUE;
  if (!target.known) return FALSE;
  const field = access(target);
  if (target.type?.type === 'Array' && target.subPath.length === 0) {
    if (Array.isArray(value)) return { kind: 'jsonEquals', field: field.field, json: JSON.stringify(value) };
    const scalar = scalarOf(target, value);
    if (!scalar) throw Errors.invalidQuery(`Cannot compare ${target.name} with this value.`);
    const isPointer = isPlainObject(value) && value.__type === 'Pointer';
    return { kind: 'arrayContains', field: field.field, value: scalar.value, as: scalar.as, ...(isPointer ? { subKey: 'objectId' } : {}) };
  }
  if (Array.isArray(value) || (isPlainObject(value) && !('__type' in value))) {
    return { kind: 'jsonEquals', field: field.field, json: JSON.stringify(value) };
  }
  const scalar = scalarOf(target, value);
  if (!scalar) throw Errors.invalidQuery(`Cannot compare ${target.name} with a ${String((value as { __type?: unknown }).__type ?? typeof value)} value.`);
  if (field.as !== 'json' && field.as !== scalar.as) return FALSE;
  return { kind: 'compare', field: field.field, op: 'eq', value: scalar.value, as: scalar.as };
}

function comparison(target: Target, op: CompareOp, operand: unknown): WhereNode {
  const scalar = scalarOf(target, operand);
  if (!scalar || (isPlainObject(operand) && operand.__type === 'Pointer')) throw Errors.invalidQuery(`$${op} on ${target.name} needs a number, string or Date.`);
  if (!target.known) return FALSE;
  const field = access(target);
  if (field.as !== 'json' && field.as !== scalar.as) return FALSE;
  return { kind: 'compare', field: field.field, op, value: scalar.value, as: scalar.as };
}

/** `order=-score,name` → sort keys; unknown fields sort as missing (no effect). */
export function parseOrder(order: unknown, schema: ClassSchema | null): OrderKey[] {
  if (order === undefined || order === null || order === '') return [];
  if (typeof order !== 'string') throw Errors.invalidQuery('order must be a comma-separated string of keys.');
  const keys: OrderKey[] = [];
  for (const raw of order.split(',')) {
    const trimmed = raw.trim();
    if (!trimmed) continue;
    const descending = trimmed.startsWith('-');
    const target = resolveTarget(descending ? trimmed.slice(1) : trimmed, schema);
    if (!target.known) continue;
    const { field, as } = access(target);
    keys.push({ field, as, descending });
  }
  return keys;
}
