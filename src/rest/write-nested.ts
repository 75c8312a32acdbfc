import { Errors } from '../errors/index.ts';
import { applyOp, parseFieldOp, type FieldOp } from '../encoding/ops.ts';
import { isPlainObject } from '../encoding/values.ts';
import { RESERVED_FIELDS, isValidFieldName } from '../schema/names.ts';
import type { FieldType } from '../schema/types.ts';

/**
 * Dot notation in a write body, as the Parse SDKs send `object.set("stats.level", 5)`:
 * `{"stats.level": 5}` changes one key inside the Object field `stats` and leaves its other keys
 * alone; every operator but the relation ones works there too (`{"stats.level": {"__op":
 * "Increment", "amount": 1}}`). The plan applies it to the document under the row lock of the
 * update (storage's `update`), so concurrent operators on one path are as atomic as top-level ones.
 *
 * Choices where Parse Server has none of its own or differs between its databases:
 * - every part of the key is checked as a field name (105), not only the first;
 * - the field is typed Object (111 when the class has it with another type);
 * - missing or null objects along the path are created, as MongoDB does; a value along the
 *   path that is there but is no object (a number, an array, a Date) answers 111 rather than
 *   being replaced or silently left alone (Parse on PostgreSQL);
 * - a Delete whose path is missing changes nothing (it creates no empty objects);
 * - on create the same keys build the nested objects, as Parse Server on PostgreSQL does.
 */
export interface NestedKey {
  readonly field: string;
  readonly path: readonly string[];
}

export interface PlannedNested {
  readonly key: NestedKey;
  readonly op: FieldOp;
  /** The type the key gives its top-level field. */
  readonly type: FieldType;
}

const OBJECT: FieldType = Object.freeze({ type: 'Object' });
/** As deep as a nested value may be (encoding/values.ts). */
const MAX_PARTS = 64;
/** Marks a Delete whose path does not exist: the document stays as it is. */
const UNCHANGED = Symbol('unchanged');

export function planNested(field: string, value: unknown, ownFields: ReadonlySet<string> | undefined): PlannedNested {
  const path = field.split('.');
  if (path.length > MAX_PARTS) throw Errors.invalidKeyName(`The key ${JSON.stringify(field.slice(0, 80))} has more than ${MAX_PARTS} parts.`);
  for (const part of path) {
    if (!isValidFieldName(part)) throw Errors.invalidKeyName(`Invalid field name: ${JSON.stringify(field.slice(0, 80))}: each part of a dotted key is a field name.`);
  }
  const root = path[0]!;
  if (root === 'ACL' || RESERVED_FIELDS.has(root) || ownFields?.has(root)) {
    throw Errors.invalidKeyName(`${root} cannot be changed through a dotted key (${JSON.stringify(field.slice(0, 80))}).`);
  }
  const parsed = parseFieldOp(field, value);
  // A Relation lives in the schema and a join table, never inside a document.
  if (parsed.op.kind === 'relation') throw Errors.incorrectType(`${field}: a Relation cannot be nested inside an object.`);
  return { key: { field, path }, op: parsed.op, type: OBJECT };
}

/** Applies `op` at the key's path inside `data` (a copy the caller owns); returns the new value there. */
export function applyNested(data: Record<string, unknown>, key: NestedKey, op: FieldOp): unknown {
  const root = key.path[0]!;
  let leaf: unknown;
  const next = changeAt(Object.hasOwn(data, root) ? data[root] : undefined, 1, key, op, (value) => {
    leaf = value;
  });
  if (next !== UNCHANGED) data[root] = next;
  return leaf;
}

/** The new value of the object at `path[0..depth)`, copied on the way down so that nothing stored is changed in place. */
function changeAt(current: unknown, depth: number, key: NestedKey, op: FieldOp, setLeaf: (value: unknown) => void): unknown {
  if (depth === key.path.length) {
    const value = applyOp(key.field, current, op);
    setLeaf(value);
    return value;
  }
  let container: Record<string, unknown>;
  if (current === undefined || current === null) {
    if (op.kind === 'delete') return UNCHANGED;
    container = {};
  } else if (isPlainObject(current) && !('__type' in current)) container = current;
  else throw Errors.incorrectType(`Cannot apply ${JSON.stringify(key.field.slice(0, 80))}: ${key.path.slice(0, depth).join('.')} is not an object.`);
  const part = key.path[depth]!;
  const next = changeAt(Object.hasOwn(container, part) ? container[part] : undefined, depth + 1, key, op, setLeaf);
  if (next === UNCHANGED) return UNCHANGED;
  const copy = { ...container };
  if (next === undefined) delete copy[part];
  else copy[part] = next;
  return copy;
}

/** Sets `value` at `path` in `target`, making the objects on the way (the answer's op results). */
export function setNested(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    const child = node[part];
    node = isPlainObject(child) ? child : (node[part] = {});
  }
  node[path[path.length - 1]!] = value;
}
