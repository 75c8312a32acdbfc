import type { StoredObject } from '../storage/port.ts';
import { encodedData } from '../storage/stored-row.ts';
import { jsonString } from '../encoding/json-string.ts';
import type { ClassSchema } from '../schema/types.ts';
import { shieldOf } from '../auth/clp.ts';
import type { RequestContext } from './context.ts';
import { relationsOf, renderObject } from './render.ts';
import type { Shape } from './shape.ts';

/**
 * A response body already written as JSON, sent as it is. Inside another body (a batch answer)
 * it becomes the value it encodes.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * Whether objects of this class may go out as stored: nothing selected by `keys` or left out by
 * `excludeKeys`, nothing included, no field hidden from this caller, and a class of the app's
 * own, whose documents hold no server-only fields (those of the built-in classes start with "_"
 * and are never sent).
 */
export function sendableAsStored(ctx: RequestContext, schema: ClassSchema, shape: Shape): boolean {
  return shape.include.length === 0 && shape.keys === undefined && shape.exclude === undefined && !schema.className.startsWith('_') && shieldOf(ctx.auth, schema) === null;
}

/**
 * One object's wire JSON, as renderObject would give it: the document's stored text with the
 * class's Relation fields and the three built-in fields appended. A document that may hold a File
 * (whose URL is added on the way out) or that was already parsed is rendered as usual.
 */
export function encodeObject(ctx: RequestContext, schema: ClassSchema, object: StoredObject): string {
  const text = encodedData(object);
  // Every File is {"__type": "File", …}; a string that merely says "File" only costs the slow way.
  if (text === undefined || text.includes('"File"')) return JSON.stringify(renderObject(ctx, schema, object));
  let tail = '';
  for (const [field, targetClass] of relationsOf(schema)) tail += `${JSON.stringify(field)}:${JSON.stringify({ __type: 'Relation', className: targetClass })},`;
  tail += `"objectId":${jsonString(object.objectId)},"createdAt":${jsonString(object.createdAt)},"updatedAt":${jsonString(object.updatedAt)}}`;
  return text === '{}' ? `{${tail}` : `${text.slice(0, -1)},${tail}`;
}

/** The body of a find: `{"results": […], "count": n}`. */
export function encodeResults(ctx: RequestContext, schema: ClassSchema, objects: readonly StoredObject[], count: number | undefined): JsonText {
  let results = '';
  for (const object of objects) results += (results ? ',' : '') + encodeObject(ctx, schema, object);
  return new JsonText(count === undefined ? `{"results":[${results}]}` : `{"results":[${results}],"count":${count}}`);
}
