import { Errors } from '../errors/index.ts';
import type { FieldType } from '../schema/types.ts';
import { decodePointer, decodeValue, isPlainObject, valueKey } from './values.ts';
import { quote } from '../errors/quote.ts';

/** One change to one field, as given in a create or update body (spec 2.3). */
export type FieldOp =
  | { readonly kind: 'set'; readonly value: unknown }
  | { readonly kind: 'delete' }
  | { readonly kind: 'increment'; readonly amount: number }
  | { readonly kind: 'add' | 'addUnique' | 'remove'; readonly objects: readonly unknown[] }
  | { readonly kind: 'relation'; readonly targetClass: string | null; readonly add: readonly string[]; readonly remove: readonly string[] };

export interface ParsedOp {
  readonly op: FieldOp;
  /** The schema type the op gives its field, when it gives one. */
  readonly type: FieldType | null;
}

export function parseFieldOp(field: string, value: unknown): ParsedOp {
  if (!isPlainObject(value) || !('__op' in value)) {
    const decoded = decodeValue(value, field);
    if (decoded.type?.type === 'Relation') return { op: { kind: 'relation', targetClass: decoded.type.targetClass!, add: [], remove: [] }, type: decoded.type };
    return { op: { kind: 'set', value: decoded.value }, type: decoded.type };
  }
  switch (value.__op) {
    case 'Delete':
      return { op: { kind: 'delete' }, type: null };
    case 'Increment': {
      const amount = value.amount;
      if (typeof amount !== 'number' || !Number.isFinite(amount)) throw Errors.invalidJson(`Increment on ${field} needs a numeric amount.`);
      return { op: { kind: 'increment', amount }, type: { type: 'Number' } };
    }
    case 'Add':
    case 'AddUnique':
    case 'Remove': {
      if (!Array.isArray(value.objects)) throw Errors.invalidJson(`${value.__op} on ${field} needs an "objects" array.`);
      const objects = (decodeValue(value.objects, field).value as unknown[]) ?? [];
      const kind = value.__op === 'Add' ? 'add' : value.__op === 'AddUnique' ? 'addUnique' : 'remove';
      return { op: { kind, objects }, type: { type: 'Array' } };
    }
    case 'AddRelation':
    case 'RemoveRelation':
      return relationOp(field, value.__op, value.objects);
    case 'Batch': {
      // The Parse SDKs send an AddRelation and a RemoveRelation on one field as a Batch.
      if (!Array.isArray(value.ops) || value.ops.length === 0) throw Errors.invalidJson(`Batch on ${field} needs an "ops" array.`);
      const parts = value.ops.map((part) => parseFieldOp(field, part));
      if (!parts.every((part) => part.op.kind === 'relation')) throw Errors.invalidJson(`Batch on ${field} may only hold AddRelation and RemoveRelation.`);
      const ops = parts.map((part) => part.op as Extract<FieldOp, { kind: 'relation' }>);
      const targets = new Set(ops.map((op) => op.targetClass));
      if (targets.size > 1) throw Errors.invalidPointer(`Relation ${field}: all objects must be of one class.`);
      // The parts apply in order, so an id added and then removed ends up removed, and the reverse.
      const add = new Set<string>();
      const remove = new Set<string>();
      for (const op of ops) {
        for (const id of op.add) {
          add.add(id);
          remove.delete(id);
        }
        for (const id of op.remove) {
          remove.add(id);
          add.delete(id);
        }
      }
      return { op: { kind: 'relation', targetClass: ops[0]!.targetClass, add: [...add], remove: [...remove] }, type: parts[0]!.type };
    }
    default:
      throw Errors.commandUnavailable(`The ${quote(value.__op, 40)} operator is not supported on ${field}.`);
  }
}

function relationOp(field: string, name: 'AddRelation' | 'RemoveRelation', objects: unknown): ParsedOp {
  if (!Array.isArray(objects) || objects.length === 0) throw Errors.invalidJson(`${name} on ${field} needs a non-empty "objects" array of Pointers.`);
  const pointers = objects.map((item) => decodePointer(item, field));
  const targetClass = pointers[0]!.className;
  if (pointers.some((pointer) => pointer.className !== targetClass)) throw Errors.invalidPointer(`Relation ${field}: all objects must be of one class.`);
  const ids = [...new Set(pointers.map((pointer) => pointer.objectId))];
  return {
    op: { kind: 'relation', targetClass, add: name === 'AddRelation' ? ids : [], remove: name === 'RemoveRelation' ? ids : [] },
    type: { type: 'Relation', targetClass },
  };
}

/** The new value of a document field after `op`; `undefined` removes the field. */
export function applyOp(field: string, current: unknown, op: FieldOp): unknown {
  switch (op.kind) {
    case 'set':
      return op.value;
    case 'delete':
      return undefined;
    case 'increment':
      if (current === undefined || current === null) return op.amount;
      if (typeof current !== 'number') throw Errors.incorrectType(`Cannot increment ${field}: it is not a number.`);
      return current + op.amount;
    case 'add':
      return [...asArray(field, current), ...op.objects];
    case 'addUnique': {
      const result = [...asArray(field, current)];
      const seen = new Set(result.map(valueKey));
      for (const item of op.objects) {
        const key = valueKey(item);
        if (!seen.has(key)) {
          seen.add(key);
          result.push(item);
        }
      }
      return result;
    }
    case 'remove': {
      const removed = new Set(op.objects.map(valueKey));
      return asArray(field, current).filter((item) => !removed.has(valueKey(item)));
    }
    case 'relation':
      return current;
  }
}

function asArray(field: string, current: unknown): unknown[] {
  if (current === undefined || current === null) return [];
  if (!Array.isArray(current)) throw Errors.incorrectType(`Cannot use an array operator on ${field}: it is not an array.`);
  return current;
}
