/**
 * What the rows between two stages of a pipeline are: a class's objects (with the fields a
 * `$project` left), or the documents of a `$group` (its key and accumulators). Stages name fields
 * of that shape; here each name is checked against it and resolved to what the compiler reads.
 */
import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { ClassSchema } from '../../schema/types.ts';
import type { OrderKey } from '../ast.ts';
import { fieldAccess } from '../fields.ts';
import { access, resolveTarget } from '../target.ts';
import type { DocumentProjection, OutputType, ValueRef } from './ast.ts';

export type Shape =
  | { readonly kind: 'documents'; readonly schema: ClassSchema | null; readonly projection: DocumentProjection }
  | {
      readonly kind: 'grouped';
      readonly className: string;
      /** The group key's field in the document, or null after `$count` (no key). */
      readonly keyName: string | null;
      readonly keyType: OutputType;
      /** Every field of the group document, in order, with whether a `$project` left it. */
      readonly fields: readonly { readonly name: string; readonly type: OutputType; readonly visible: boolean }[];
    };

export const ALL_FIELDS: DocumentProjection = Object.freeze({ mode: 'all', keys: Object.freeze([]), objectId: true, createdAt: true, updatedAt: true });

const BUILT_IN = new Set(['objectId', 'createdAt', 'updatedAt']);
/** Names an accumulator or `$count` may take: a Parse field name that is not a built-in one. */
const OUTPUT_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const RESERVED_OUTPUTS = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

export function assertOutputName(name: string, stage: string): void {
  if (!OUTPUT_NAME.test(name) || RESERVED_OUTPUTS.has(name)) {
    throw Errors.invalidKeyName(`${stage}: ${JSON.stringify(name.slice(0, 80))} is not a valid output field name.`);
  }
}

/** Whether a top-level field of the shape is still there (no `$project` removed it). */
function visibleInDocuments(projection: DocumentProjection, name: string): boolean {
  if (BUILT_IN.has(name)) return projection[name as 'objectId' | 'createdAt' | 'updatedAt'];
  if (projection.mode === 'include') return projection.keys.includes(name);
  if (projection.mode === 'exclude') return !projection.keys.includes(name);
  return true;
}

/**
 * The name a stage's key has in the shape's rows: `_id` is MongoDB's name for `objectId`, and
 * after `$group` both name the group key. A field a `$project` removed, or that a group document
 * lacks, is refused: a stage after `$group` or `$project` reads only what they answer.
 */
export function fieldName(shape: Shape, key: string, stage: string): string {
  const [first, ...rest] = key.split('.');
  const top = first === '_id' ? 'objectId' : first!;
  if (shape.kind === 'documents') {
    if (!visibleInDocuments(shape.projection, top)) throw Errors.invalidQuery(`${stage} reads ${JSON.stringify(top.slice(0, 80))}, which an earlier $project removed.`);
    return [top, ...rest].join('.');
  }
  // The key's own field name is the document's affair: stages name the key objectId or _id.
  const name = top === 'objectId' ? shape.keyName : top === shape.keyName ? null : top;
  const field = shape.fields.find((candidate) => candidate.name === name);
  if (name === null || !field || !field.visible) {
    throw Errors.invalidQuery(`${stage} reads ${JSON.stringify(top.slice(0, 80))}, which is not a field of the ${shape.keyName === null ? '$count' : '$group'} before it.`);
  }
  if (rest.length > 0) throw Errors.invalidQuery(`${stage} reads ${JSON.stringify(key.slice(0, 80))}: the fields of a group are not objects.`);
  return name;
}

/** A class schema describing the group documents, so that `$match` and `$sort` read them as they read a class. */
export function schemaOfShape(shape: Shape): ClassSchema | null {
  if (shape.kind === 'documents') return shape.schema;
  const fields = Object.fromEntries(shape.fields.map((field) => [field.name, { type: field.type }]));
  return { className: shape.className, fields, classLevelPermissions: {}, indexes: {} };
}

/**
 * A `$field` reference of `$group`: the value it reads from the shape's rows, or null for a
 * field no row holds (not in the schema). `allowed` lists the types the operator takes.
 */
export function valueOf(shape: Shape, reference: unknown, where: string, allowed: readonly OutputType[]): ValueRef | null {
  if (typeof reference !== 'string' || !reference.startsWith('$') || reference.startsWith('$$')) {
    throw Errors.invalidQuery(`${where} must name a field as "$field"; expressions are not supported.`);
  }
  const key = reference.slice(1);
  if (key.includes('.')) throw Errors.invalidQuery(`${where} reads ${JSON.stringify(key.slice(0, 80))}: only top-level fields can be grouped and accumulated.`);
  const name = fieldName(shape, key, where);
  const type = typeOf(shape, name);
  if (type === null) return null;
  if (type === 'other' || !allowed.includes(type.output)) {
    throw Errors.invalidQuery(`${where} cannot read ${JSON.stringify(name)}, of type ${type === 'other' ? describeOther(shape, name) : type.schemaType}; it takes ${allowed.join(', ')} fields.`);
  }
  const { field, as } = shape.kind === 'documents' ? access(resolveTarget(name, shape.schema)) : fieldAccess(name, { type: type.output });
  if (as === 'json') throw Errors.invalidQuery(`${where} cannot read ${JSON.stringify(name)}.`);
  return { field, as, type: type.output };
}

function typeOf(shape: Shape, name: string): { output: OutputType; schemaType: string } | 'other' | null {
  if (shape.kind === 'grouped') {
    const field = shape.fields.find((candidate) => candidate.name === name)!;
    return { output: field.type, schemaType: field.type };
  }
  if (name === 'objectId') return { output: 'String', schemaType: 'String' };
  if (name === 'createdAt' || name === 'updatedAt') return { output: 'Date', schemaType: 'Date' };
  // Checks the name as a query key would be (105 for a malformed or server-only name).
  const target = resolveTarget(name, shape.schema);
  if (!target.known || !target.type) return null;
  switch (target.type.type) {
    case 'String':
    case 'Number':
    case 'Boolean':
    case 'Date':
      return { output: target.type.type, schemaType: target.type.type };
    case 'Pointer':
      // Parse answers a group by a Pointer with the objectId it points to.
      return { output: 'String', schemaType: 'Pointer' };
    default:
      return 'other';
  }
}

function describeOther(shape: Shape, name: string): string {
  return shape.kind === 'documents' ? (shape.schema?.fields[name]?.type ?? 'unknown') : 'unknown';
}

/** `$sort: {field: 1 | -1, …}` → sort keys; fields no row holds sort nothing, as in `order`. */
export function parseSort(shape: Shape, spec: unknown): OrderKey[] {
  if (!isPlainObject(spec) || Object.keys(spec).length === 0) throw Errors.invalidQuery('$sort needs an object such as {"score": -1}.');
  const keys: OrderKey[] = [];
  for (const [key, direction] of Object.entries(spec)) {
    if (direction !== 1 && direction !== -1) throw Errors.invalidQuery(`$sort direction of ${JSON.stringify(key.slice(0, 80))} must be 1 or -1.`);
    const name = fieldName(shape, key, '$sort');
    const schema = schemaOfShape(shape);
    const target = resolveTarget(name, schema);
    if (!target.known) continue;
    keys.push({ ...access(target), descending: direction === -1 });
  }
  return keys;
}

/**
 * `$project: {field: 1 | true | 0 | false, …}` applied to the shape. Inclusion and exclusion do not
 * mix (but `objectId`/`_id` may be excluded from an inclusion), as in MongoDB; computed fields
 * are not supported.
 */
export function project(shape: Shape, spec: unknown): Shape {
  if (!isPlainObject(spec) || Object.keys(spec).length === 0) throw Errors.invalidQuery('$project needs an object such as {"score": 1}.');
  const include: string[] = [];
  const exclude: string[] = [];
  let keepId: boolean | null = null;
  for (const [key, value] of Object.entries(spec)) {
    const kept = value === 1 || value === true ? true : value === 0 || value === false ? false : null;
    if (kept === null) throw Errors.invalidQuery(`$project of ${JSON.stringify(key.slice(0, 80))} must be 1, true, 0 or false; computed fields are not supported.`);
    const name = key === '_id' ? 'objectId' : key;
    if (name.includes('.')) throw Errors.invalidQuery(`$project takes top-level fields; ${JSON.stringify(key.slice(0, 80))} is not one.`);
    if (name !== 'objectId') resolveTarget(name, null);
    if (name === 'objectId') keepId = kept;
    else (kept ? include : exclude).push(name);
  }
  if (include.length > 0 && exclude.length > 0) throw Errors.invalidQuery('$project cannot both include and exclude fields (other than objectId).');
  const including = include.length > 0 || (exclude.length === 0 && keepId === true);
  if (shape.kind === 'grouped') {
    const visible = (name: string) => {
      if (name === shape.keyName) return keepId !== false;
      return including ? include.includes(name) : !exclude.includes(name);
    };
    return { ...shape, fields: shape.fields.map((field) => ({ ...field, visible: field.visible && visible(field.name) })) };
  }
  const before = shape.projection;
  const has = (name: string) => visibleInDocuments(before, name);
  const builtIn = (name: 'createdAt' | 'updatedAt') => has(name) && (including ? include.includes(name) : !exclude.includes(name));
  const own = (names: string[]) => names.filter((name) => !BUILT_IN.has(name));
  let projection: DocumentProjection;
  if (including) {
    projection = { mode: 'include', keys: own(include).filter(has), objectId: has('objectId') && keepId !== false, createdAt: builtIn('createdAt'), updatedAt: builtIn('updatedAt') };
  } else if (before.mode === 'include') {
    projection = { ...before, keys: before.keys.filter((name) => !exclude.includes(name)), objectId: before.objectId && keepId !== false, createdAt: builtIn('createdAt'), updatedAt: builtIn('updatedAt') };
  } else {
    const keys = [...new Set([...before.keys, ...own(exclude)])];
    projection = { mode: 'exclude', keys, objectId: before.objectId && keepId !== false, createdAt: builtIn('createdAt'), updatedAt: builtIn('updatedAt') };
  }
  return { ...shape, projection };
}
