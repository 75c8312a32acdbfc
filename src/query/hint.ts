import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { ClassSchema } from '../schema/types.ts';
import { textIndexField } from '../schema/indexes.ts';
import type { IndexHint } from './ast.ts';

/**
 * The name MongoDB, and so Parse, gives the index on `_id`: here the primary key on objectId.
 * Schema-API index names start with a letter, so no index of the schema can take it.
 */
export const PRIMARY_KEY_HINT = '_id_';

/**
 * `hint`, as the Parse SDKs send it (`query.hint(…)`): an index's name, or its keys as an object
 * (`{"score": -1}`, MongoDB's other form; in a URL, the object's JSON). The index must be one of
 * the class: a name its schema lists under `indexes`, `_id_`, or the keys of one of them in their
 * order and directions (`{"objectId": 1}` or `{"_id": 1}` for the primary key). Anything else
 * answers 102 naming what was asked for. A text index is accepted and steers nothing: it is read
 * whenever `$text` searches its field. Undefined without a hint.
 */
export function parseHint(value: unknown, schema: ClassSchema | null): IndexHint | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const asked = typeof value === 'string' && value.trimStart().startsWith('{') ? parseKeysText(value) : value;
  const className = schema?.className ?? 'this class';
  if (typeof asked === 'string') {
    if (asked === PRIMARY_KEY_HINT) return { kind: 'primaryKey' };
    const keys = schema && Object.hasOwn(schema.indexes, asked) ? schema.indexes[asked]! : null;
    if (!keys) throw Errors.invalidQuery(`hint: ${className} has no index named ${JSON.stringify(asked.slice(0, 80))}.`);
    return steered(asked, keys);
  }
  if (!isPlainObject(asked)) throw Errors.invalidQuery('hint must be an index name or the keys of an index, such as {"score": -1}.');
  const wanted = Object.entries(asked);
  if (wanted.length === 1 && (wanted[0]![0] === 'objectId' || wanted[0]![0] === '_id') && wanted[0]![1] === 1) return { kind: 'primaryKey' };
  for (const [name, keys] of Object.entries(schema?.indexes ?? {})) {
    const have = Object.entries(keys);
    if (have.length === wanted.length && have.every(([field, direction], i) => wanted[i]![0] === field && wanted[i]![1] === direction)) return steered(name, keys);
  }
  throw Errors.invalidQuery(`hint: ${className} has no index with the keys ${JSON.stringify(asked).slice(0, 120)}.`);
}

function steered(name: string, keys: Readonly<Record<string, 1 | -1 | 'text'>>): IndexHint | undefined {
  return textIndexField(keys) === null ? { kind: 'schemaIndex', name } : undefined;
}

function parseKeysText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw Errors.invalidJson('hint is not valid JSON.');
  }
}

/** The hint as part of a key of kept statements (rest/query-plans.ts). */
export function hintKey(hint: IndexHint | undefined): string {
  return hint === undefined ? '' : hint.kind === 'primaryKey' ? PRIMARY_KEY_HINT : `idx:${hint.name}`;
}
