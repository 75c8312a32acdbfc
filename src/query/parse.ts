import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { ClassSchema } from '../schema/types.ts';
import { textIndexOn } from '../schema/indexes.ts';
import { and, type CompareOp, type OrderKey, type Scalar, type WhereNode } from './ast.ts';
import { translateRegex } from './regex.ts';
import { words } from './words.ts';
import { innerScope, MAX_QUERY_NESTING, MAX_QUERY_TERMS, rootScope, type QueryScope } from './scope.ts';
import { access, FALSE, isArrayField, isPointer, isRelation, negate, relationHolds, resolveTarget, scalarOf, TRUE, type Target } from './target.ts';
import { GEO_OPERATORS, parseGeo } from './operators/geo.ts';
import { parseRelatedTo, parseSubquery, SUBQUERY_OPERATORS } from './operators/subquery.ts';
import { quote } from '../errors/quote.ts';

export { MAX_QUERY_NESTING, MAX_QUERY_TERMS } from './scope.ts';

const COMPARISONS = new Map<string, CompareOp>([['$lt', 'lt'], ['$lte', 'lte'], ['$gt', 'gt'], ['$gte', 'gte'], ['$ne', 'ne'], ['$eq', 'eq']]);
/** Nesting of one operand; stored values nest at most 64 levels, operators add a few around them. */
const MAX_OPERAND_DEPTH = 100;
/** NUL and unpaired surrogates: PostgreSQL cannot take them as text or jsonb, and no stored string holds them. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Query options that filter nothing: spec 4.2 does not allow them inside `$or`. */
const OPTIONS_IN_BRANCH = new Set(['limit', 'skip', 'order', 'include', 'keys', 'count']);
const TEXT_LANGUAGES = new Set(['simple', 'danish', 'dutch', 'english', 'finnish', 'french', 'german', 'hungarian', 'italian', 'norwegian', 'portuguese', 'romanian', 'russian', 'spanish', 'swedish', 'turkish']);

export interface ParsedQuery {
  readonly where: WhereNode;
  /** `$nearSphere` orders by distance when the query has no `order`. */
  readonly nearest: OrderKey | null;
  /** The query runs a regular expression an index cannot answer (it is throttled). */
  readonly regex: boolean;
}

/**
 * `where` JSON → WhereNode, resolved against the class schemas so each constraint knows how its
 * field is stored. Malformed input is refused here (102 for a bad operator or operand, 105 for a
 * bad key), so the compiler only ever sees well-formed, typed nodes.
 */
export function parseQuery(where: unknown, schema: ClassSchema | null, schemaOf: (className: string) => ClassSchema | null = () => null): ParsedQuery {
  const scope = rootScope(schema, schemaOf);
  const node = parseIn(where, scope);
  return { where: node, nearest: scope.found.nearest, regex: scope.found.regex };
}

export function parseWhere(where: unknown, schema: ClassSchema | null): WhereNode {
  return parseQuery(where, schema).where;
}

function parseIn(where: unknown, scope: QueryScope): WhereNode {
  if (where === undefined || where === null) return TRUE;
  if (!isPlainObject(where)) throw Errors.invalidQuery('where must be a JSON object.');
  if (scope.nesting > MAX_QUERY_NESTING) throw Errors.invalidQuery(`Sub-queries ($or, $and, $nor) may nest at most ${MAX_QUERY_NESTING} levels deep.`);
  const nodes: WhereNode[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === '$or' || key === '$and' || key === '$nor') {
      if (!Array.isArray(value) || value.length === 0) throw Errors.invalidQuery(`${key} needs a non-empty array of queries.`);
      const parts = value.map((part) => {
        if (isPlainObject(part)) {
          const option = Object.keys(part).find((name) => OPTIONS_IN_BRANCH.has(name));
          if (option) throw Errors.invalidQuery(`"${option}" is not allowed inside ${key}: give it beside the where.`);
        }
        return parseIn(part, innerScope(scope, scope.schema, true));
      });
      if (key === '$and') nodes.push(and(parts));
      else if (key === '$or') nodes.push({ kind: 'or', nodes: parts });
      else nodes.push(negate({ kind: 'or', nodes: parts }));
      continue;
    }
    if (key === '$relatedTo') {
      nodes.push(parseRelatedTo(value, scope));
      continue;
    }
    if (key.startsWith('$')) throw Errors.invalidQuery(`Unknown top-level operator ${quote(key)}.`);
    scope.budget.terms += assertOperand(value, quote(key));
    if (scope.budget.terms > MAX_QUERY_TERMS) throw Errors.invalidQuery(`A query may hold at most ${MAX_QUERY_TERMS} values.`);
    nodes.push(parseField(key, value, scope));
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

function parseField(key: string, value: unknown, scope: QueryScope): WhereNode {
  const target = resolveTarget(key, scope.schema);
  if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
    return and(Object.entries(value).map(([op, operand]) => parseConstraint(target, op, operand, value, scope)));
  }
  return equality(target, value);
}

function parseConstraint(target: Target, op: string, operand: unknown, all: Record<string, unknown>, scope: QueryScope): WhereNode {
  const cmp = COMPARISONS.get(op);
  if (cmp) {
    if (cmp === 'eq') return equality(target, operand);
    if (cmp === 'ne') return negate(equality(target, operand));
    return comparison(target, cmp, operand);
  }
  if (GEO_OPERATORS.has(op)) return parseGeo(target, op, operand, all, scope);
  if (SUBQUERY_OPERATORS.has(op)) return parseSubquery(target, op, operand, scope, parseIn);
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
      return operand ? node : negate(node);
    }
    case '$all': {
      if (!Array.isArray(operand)) throw Errors.invalidQuery('$all needs an array.');
      if (target.known && !isArrayField(target) && !isRelation(target)) throw Errors.invalidQuery(`$all needs an Array or Relation field; ${target.name} is not one.`);
      // As in MongoDB, which Parse clients were written against: $all of nothing matches nothing.
      if (operand.length === 0) return FALSE;
      return and(operand.map((item) => equality(target, item)));
    }
    case '$containedBy':
      return containedBy(target, operand);
    case '$regex':
      return regex(target, operand, all.$options, scope);
    case '$options':
      if (!('$regex' in all)) throw Errors.invalidQuery('$options is only valid with $regex.');
      return TRUE;
    case '$text':
      return text(target, operand, scope);
    default:
      throw Errors.invalidQuery(`Unknown or unsupported operator ${quote(op)} on ${target.name}.`);
  }
}

function equality(target: Target, value: unknown): WhereNode {
  if (value === null) return target.known ? negate({ kind: 'exists', field: access(target).field }) : TRUE;
  if (!target.known) return FALSE;
  if (isRelation(target)) {
    if (!isPointer(value)) throw Errors.invalidQuery(`${target.name} is a Relation: compare it with a Pointer.`);
    return relationHolds(target, { ids: [value.objectId] });
  }
  const field = access(target);
  if (isArrayField(target)) {
    if (Array.isArray(value)) return { kind: 'jsonEquals', field: field.field, json: JSON.stringify(value) };
    const scalar = scalarOf(target, value);
    if (!scalar) throw Errors.invalidQuery(`Cannot compare ${target.name} with this value.`);
    return { kind: 'arrayContains', field: field.field, value: scalar.value, as: scalar.as, ...(isPointer(value) ? { subKey: 'objectId' } : {}) };
  }
  if (Array.isArray(value) || (isPlainObject(value) && !('__type' in value))) {
    // A field read as a string, number or boolean (objectId, createdAt, updatedAt, a typed
    // field) never holds an object or an array: no object equals the value, as on any field
    // of another type. An object with no "$" key is such a value, `{}` included.
    if (field.as !== 'json') return FALSE;
    return { kind: 'jsonEquals', field: field.field, json: JSON.stringify(value) };
  }
  const scalar = scalarOf(target, value);
  if (!scalar) {
    const type = isPlainObject(value) ? value.__type : typeof value;
    throw Errors.invalidQuery(`Cannot compare ${target.name} with a ${typeof type === 'string' ? type.slice(0, 40) : quote(type, 40)} value.`);
  }
  if (field.as !== 'json' && field.as !== scalar.as) return FALSE;
  return { kind: 'compare', field: field.field, op: 'eq', value: scalar.value, as: scalar.as };
}

function comparison(target: Target, op: CompareOp, operand: unknown): WhereNode {
  const scalar = scalarOf(target, operand);
  if (!scalar || isPointer(operand)) throw Errors.invalidQuery(`$${op} on ${target.name} needs a number, string or Date.`);
  if (!target.known) return FALSE;
  const field = access(target);
  if (field.as !== 'json' && field.as !== scalar.as) return FALSE;
  return { kind: 'compare', field: field.field, op, value: scalar.value, as: scalar.as };
}

/** `$containedBy`: every element of the array field is one of the given values. */
function containedBy(target: Target, operand: unknown): WhereNode {
  if (!Array.isArray(operand)) throw Errors.invalidQuery('$containedBy needs an array.');
  if (target.known && !isArrayField(target)) throw Errors.invalidQuery(`$containedBy needs an Array field; ${target.name} is not one.`);
  const scalars = operand.map((item) => {
    const scalar = scalarOf(target, item);
    if (!scalar) throw Errors.invalidQuery('$containedBy takes strings, numbers, booleans, Dates or Pointers.');
    return { scalar, pointer: isPointer(item) };
  });
  if (!target.known) return FALSE;
  const pointers = scalars.some((item) => item.pointer);
  const kinds = new Set(scalars.map((item) => item.scalar.as));
  if (kinds.size > 1 || (pointers && !scalars.every((item) => item.pointer))) throw Errors.invalidQuery('$containedBy values must all be of one type.');
  const as = scalars[0]?.scalar.as ?? 'text';
  const values: Scalar[] = scalars.map((item) => item.scalar.value);
  return { kind: 'containedBy', field: access(target).field, element: pointers ? { as: 'text', subKey: 'objectId' } : { as }, values };
}

function regex(target: Target, pattern: unknown, options: unknown, scope: QueryScope): WhereNode {
  const translated = translateRegex(pattern, options);
  if (!target.known) return FALSE;
  const { field, as } = access(target);
  if (as !== 'text' && as !== 'json') return FALSE;
  // An Array matches when one of its strings does, as in MongoDB.
  if (isArrayField(target)) {
    scope.found.regex = true;
    return { kind: 'regex', field, pattern: translated, element: { as: 'text' } };
  }
  if (!translated.prefixOnly) scope.found.regex = true;
  return { kind: 'regex', field, pattern: translated };
}

/**
 * `$text: {$search: {$term, $language?, $caseSensitive?, $diacriticSensitive?}}`: every word of
 * the term is a word of the field, in any case. `$language` is checked but selects no stemming:
 * SQLite has no stemmer, and a search must answer alike on both backends. A text index of the
 * field, when the class has one, goes with the node.
 */
function text(target: Target, operand: unknown, scope: QueryScope): WhereNode {
  const search = isPlainObject(operand) ? operand.$search : undefined;
  if (!isPlainObject(search) || typeof search.$term !== 'string' || search.$term.trim() === '') throw Errors.invalidQuery('$text needs {$search: {$term: "words"}}.');
  const language = search.$language ?? null;
  if (language !== null && (typeof language !== 'string' || !TEXT_LANGUAGES.has(language))) {
    throw Errors.invalidQuery(`$language must be one of ${[...TEXT_LANGUAGES].join(', ')}.`);
  }
  for (const flag of ['$caseSensitive', '$diacriticSensitive'] as const) {
    if (search[flag] === true) throw Errors.invalidQuery(`${flag}: true is not supported; searches ignore case.`);
  }
  if (!target.known) return FALSE;
  const { field, as } = access(target);
  if (as !== 'text' && as !== 'json') throw Errors.invalidQuery(`$text needs a String field; ${target.name} is not one.`);
  const terms = words(search.$term);
  if (terms.length === 0) return FALSE;
  const className = target.subPath.length === 0 ? target.className : null;
  const index = className && scope.schema ? textIndexOn(scope.schema.indexes, target.name) : null;
  return className && index ? { kind: 'text', field, words: terms, index: { className, name: index } } : { kind: 'text', field, words: terms };
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
