import { Errors } from '../errors/index.ts';
import { isPlainObject, normalizeIso } from '../encoding/values.ts';
import type { ClassSchema, FieldType } from '../schema/types.ts';
import type { FieldRef, Scalar, StoredReading, SubQuery, ValueKind, WhereNode } from './ast.ts';
import { leadsReaderIndex, storedReading } from '../schema/indexes.ts';
import { fieldAccess } from './fields.ts';
import { quote } from '../errors/quote.ts';

export const FALSE: WhereNode = Object.freeze({ kind: 'const', value: false });
export const TRUE: WhereNode = Object.freeze({ kind: 'const', value: true });
const SEGMENT = /^[A-Za-z0-9_]+$/;

/** The field a constraint is about, resolved against the class schema. */
export interface Target {
  /** The class queried (null when it does not exist yet). */
  readonly className: string | null;
  readonly name: string;
  /** The schema type of the top-level field, if the class has it. */
  readonly type: FieldType | undefined;
  /** Path below the top-level field (dot notation into objects). */
  readonly subPath: readonly string[];
  readonly known: boolean;
  /** The column the class keeps the top-level field's reading in, if it has one (schema/indexes.ts). */
  readonly stored: StoredReading | null;
  /** The top-level field leads an index with a reader index beside it (schema/indexes.ts). */
  readonly leadsReaderIndex: boolean;
}

export function resolveTarget(key: string, schema: ClassSchema | null): Target {
  const segments = key.split('.');
  if (!segments.every((segment) => SEGMENT.test(segment))) throw Errors.invalidKeyName(`Invalid key in query: ${quote(key)}.`);
  const name = segments[0]!;
  // Fields starting with "_" are the server's own (password hashes, tokens): not queryable.
  if (name.startsWith('_')) throw Errors.invalidKeyName(`Invalid key in query: ${quote(key)}.`);
  const builtIn = name === 'objectId' || name === 'createdAt' || name === 'updatedAt';
  // Own fields only: "constructor" or "toString" are field names like any other, not inherited methods.
  const type = builtIn || !schema || !Object.hasOwn(schema.fields, name) ? undefined : schema.fields[name];
  const stored = type && schema?.storedIndexes ? readingOf(name, type, schema) : null;
  return { className: schema?.className ?? null, name, type, subPath: segments.slice(1), known: builtIn || type !== undefined, stored, leadsReaderIndex: type !== undefined && leadsReaderIndex(schema, name) };
}

function readingOf(name: string, type: FieldType, schema: ClassSchema): StoredReading | null {
  const { field, as } = fieldAccess(name, type);
  return field.kind === 'doc' ? storedReading(schema, field.path, as) : null;
}

export function access(target: Target): { field: FieldRef; as: ValueKind | 'json' } {
  const base = fieldAccess(target.name, target.type);
  if (target.subPath.length === 0) {
    if (base.field.kind !== 'doc' || (!target.stored && !target.leadsReaderIndex)) return base;
    const field = { ...base.field, ...(target.stored ? { stored: target.stored } : {}), ...(target.leadsReaderIndex ? { leadsReaderIndex: true as const } : {}) };
    return { field, as: base.as };
  }
  return { field: { kind: 'doc', path: [target.name, ...target.subPath], untyped: true }, as: 'json' };
}

/** A query value reduced to what is stored at the compared path. */
export function scalarOf(target: Target, value: unknown): { value: Scalar; as: ValueKind } | null {
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

export function negate(node: WhereNode): WhereNode {
  return node.kind === 'const' ? { kind: 'const', value: !node.value } : { kind: 'not', node };
}

export function isArrayField(target: Target): boolean {
  return target.type?.type === 'Array' && target.subPath.length === 0;
}

export function isRelation(target: Target): boolean {
  return target.type?.type === 'Relation' && target.subPath.length === 0 && target.className !== null;
}

/** The Relation `target` holds one of the objects `ids` (a Relation is queried like an array of Pointers). */
export function relationHolds(target: Target, related: { ids: readonly string[] } | { query: SubQuery }): WhereNode {
  return { kind: 'relationHolds', field: access(target).field, owningClass: target.className!, key: target.name, related };
}

export function isPointer(value: unknown): value is { __type: 'Pointer'; className: string; objectId: string } {
  return isPlainObject(value) && value.__type === 'Pointer' && typeof value.className === 'string' && typeof value.objectId === 'string';
}
