import type { StoredObject } from '../storage/port.ts';
import type { ClassSchema } from '../schema/types.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { RequestContext } from './context.ts';

const UNDERSCORE = 0x5f;

// A schema object is replaced, never changed, when its class changes: its Relation fields can be
// listed once instead of on every object rendered.
const relationFields = new WeakMap<ClassSchema, readonly (readonly [string, string | undefined])[]>();

/** The Relation fields an object of the class shows; spec 2.5: a role's users and roles are not shown. */
export function relationsOf(schema: ClassSchema): readonly (readonly [string, string | undefined])[] {
  let relations = relationFields.get(schema);
  if (!relations) {
    relations = schema.className === '_Role' ? [] : Object.entries(schema.fields).flatMap(([field, type]) => (type.type === 'Relation' ? [[field, type.targetClass] as const] : []));
    relationFields.set(schema, relations);
  }
  return relations;
}

/** Turns a stored object into the wire JSON of spec 4.1 (File URLs, Relation fields, keys). */
export function renderObject(ctx: RequestContext, schema: ClassSchema | null, object: StoredObject, keys?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const data = object.data;
  for (const field in data) {
    // Fields starting with "_" are the server's own (a password hash, tokens): never sent.
    if (field.charCodeAt(0) === UNDERSCORE || (keys && !keys.has(field))) continue;
    const value = data[field];
    // Only File, Array and Object fields can hold a File, so other values skip the walk; so does
    // the ACL, which every write checks to be a map of permissions.
    const type = schema?.fields[field]?.type;
    out[field] = (type === undefined && field !== 'ACL') || type === 'File' || type === 'Array' || type === 'Object' ? withFileUrls(ctx, value) : value;
  }
  if (schema) {
    for (const [field, targetClass] of relationsOf(schema)) {
      if (!keys || keys.has(field)) out[field] = { __type: 'Relation', className: targetClass };
    }
  }
  out.objectId = object.objectId;
  out.createdAt = object.createdAt;
  out.updatedAt = object.updatedAt;
  return out;
}

/**
 * Adds `url` to every File in a value, at any depth, so SDKs can download Files kept in arrays
 * and nested objects too. Values without a File are returned as they are, not copied.
 */
export function withFileUrls(ctx: RequestContext, value: unknown): unknown {
  if (Array.isArray(value)) {
    // Copied only from the first item that changes: most values hold no File.
    let items: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = withFileUrls(ctx, value[i]);
      if (items) items.push(item);
      else if (item !== value[i]) items = [...value.slice(0, i), item];
    }
    return items ?? value;
  }
  if (!isPlainObject(value)) return value;
  if (value.__type === 'File') return { ...value, url: fileUrl(ctx, String(value.name)) };
  if (typeof value.__type === 'string') return value;
  const keys = Object.keys(value);
  let entries: [string, unknown][] | null = null;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = withFileUrls(ctx, value[key]);
    if (entries) entries.push([key, item]);
    else if (item !== value[key]) entries = [...keys.slice(0, i).map((earlier): [string, unknown] => [earlier, value[earlier]]), [key, item]];
  }
  // fromEntries rather than assignment: a nested "__proto__" key must stay a plain key.
  return entries ? Object.fromEntries(entries) : value;
}

export function fileUrl(ctx: RequestContext, name: string): string {
  const base = typeof ctx.app.record.settings.filesURL === 'string' ? ctx.app.record.settings.filesURL : `${ctx.publicUrl}/files`;
  return `${base}/${encodeURIComponent(ctx.app.record.applicationId)}/${encodeURIComponent(name)}`;
}

export function objectUrl(ctx: RequestContext, className: string, objectId: string): string {
  return `${ctx.publicUrl}/1/classes/${encodeURIComponent(className)}/${encodeURIComponent(objectId)}`;
}
