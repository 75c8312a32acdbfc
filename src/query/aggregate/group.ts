/** `$group` and `$count`: a level that folds the rows below it into one document per key. */
import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { Accumulator, GroupLevel, OutputType } from './ast.ts';
import { assertOutputName, valueOf, type Shape } from './shape.ts';

/**
 * A group document is built by one call of the database's JSON object function with two
 * arguments per field, and PostgreSQL's functions take at most 100 arguments.
 */
export const MAX_ACCUMULATORS = 40;

const KEY_TYPES: readonly OutputType[] = ['String', 'Number', 'Boolean', 'Date'];
const ORDERED_TYPES: readonly OutputType[] = ['String', 'Number', 'Date'];
const NUMBERS: readonly OutputType[] = ['Number'];

/** `{$group: {_id, <name>: {<accumulator>: …}, …}}` → the level and the shape of its documents. */
export function parseGroup(shape: Shape, spec: unknown): { level: GroupLevel; shape: Shape } {
  if (!isPlainObject(spec)) throw Errors.invalidQuery('$group needs an object such as {"_id": "$field", "count": {"$sum": 1}}.');
  // Parse clients of old releases name the key `objectId`; Parse Server now asks for `_id`.
  if ('_id' in spec && 'objectId' in spec) throw Errors.invalidQuery('$group takes its key as _id (or objectId), not both.');
  if (!('_id' in spec) && !('objectId' in spec)) throw Errors.invalidQuery('Invalid parameter for query: group. Missing key _id');
  const id = '_id' in spec ? spec._id : spec.objectId;
  const names = Object.keys(spec).filter((name) => name !== '_id' && name !== 'objectId');
  if (names.length > MAX_ACCUMULATORS) throw Errors.invalidQuery(`$group may compute at most ${MAX_ACCUMULATORS} fields.`);
  if (id !== null && typeof id !== 'string') {
    throw Errors.invalidQuery('$group _id must be null or one field ("$score"); compound keys and expressions are not supported.');
  }
  const key = id === null ? null : valueOf(shape, id, '$group _id', KEY_TYPES);
  const accumulators = names.map((name) => parseAccumulator(shape, name, spec[name]));
  const keyName = freeName('key', names);
  const keyType: OutputType = key?.type ?? 'String';
  const className = shape.kind === 'documents' ? (shape.schema?.className ?? '') : shape.className;
  return {
    level: { kind: 'group', key, keyName, accumulators },
    shape: {
      kind: 'grouped',
      className,
      keyName,
      keyType,
      fields: [{ name: keyName, type: keyType, visible: true }, ...accumulators.map((accumulator) => ({ name: accumulator.name, type: outputType(accumulator), visible: true }))],
    },
  };
}

/** `{$count: "<name>"}`: the number of rows, in one document holding that field alone (none for no rows). */
export function parseCount(shape: Shape, name: unknown): { level: GroupLevel; shape: Shape } {
  if (typeof name !== 'string') throw Errors.invalidQuery('$count needs the name of its output field, such as {"$count": "total"}.');
  assertOutputName(name, '$count');
  const keyName = freeName('key', [name]);
  const className = shape.kind === 'documents' ? (shape.schema?.className ?? '') : shape.className;
  return {
    level: { kind: 'group', key: null, keyName, accumulators: [{ name, op: 'count', times: 1 }] },
    shape: { kind: 'grouped', className, keyName: null, keyType: 'String', fields: [{ name: keyName, type: 'String', visible: false }, { name, type: 'Number', visible: true }] },
  };
}

function parseAccumulator(shape: Shape, name: string, spec: unknown): Accumulator {
  assertOutputName(name, '$group');
  if (!isPlainObject(spec) || Object.keys(spec).length !== 1) {
    throw Errors.invalidQuery(`$group field ${name} needs one accumulator, such as {"$sum": 1}.`);
  }
  const [op, operand] = Object.entries(spec)[0]!;
  const where = `${op} of ${name}`;
  switch (op) {
    case '$sum':
      if (typeof operand === 'number') {
        if (!Number.isFinite(operand)) throw Errors.invalidQuery(`${where} must be a finite number or a field.`);
        return { name, op: 'count', times: operand };
      }
      return { name, op: 'sum', value: valueOf(shape, operand, where, NUMBERS), type: 'Number' };
    case '$avg':
      return { name, op: 'avg', value: valueOf(shape, operand, where, NUMBERS), type: 'Number' };
    case '$min':
    case '$max': {
      const value = valueOf(shape, operand, where, ORDERED_TYPES);
      return { name, op: op === '$min' ? 'min' : 'max', value, type: value?.type ?? 'Number' };
    }
    case '$count':
      if (!isPlainObject(operand) || Object.keys(operand).length > 0) throw Errors.invalidQuery(`${where} takes an empty object: {"$count": {}}.`);
      return { name, op: 'count', times: 1 };
    default:
      throw Errors.invalidQuery(`Unsupported accumulator ${JSON.stringify(op.slice(0, 80))} in $group (supported: $sum, $avg, $min, $max, $count).`);
  }
}

function outputType(accumulator: Accumulator): OutputType {
  return accumulator.op === 'count' ? 'Number' : accumulator.type;
}

/** A field name for the group key that no accumulator uses. */
function freeName(base: string, taken: readonly string[]): string {
  let name = base;
  for (let i = 1; taken.includes(name); i++) name = `${base}${i}`;
  return name;
}
