import type { StoredObject } from '../storage/port.ts';
import type { ClassSchema } from '../schema/types.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { RequestContext } from './context.ts';

/** Turns a stored object into the wire JSON of spec 4.1 (File URLs, Relation fields, keys). */
export function renderObject(ctx: RequestContext, schema: ClassSchema | null, object: StoredObject, keys?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(object.data)) {
    if (keys && !keys.has(field)) continue;
    out[field] = isPlainObject(value) && value.__type === 'File' ? { ...value, url: fileUrl(ctx, String(value.name)) } : value;
  }
  if (schema) {
    for (const [field, type] of Object.entries(schema.fields)) {
      if (type.type === 'Relation' && (!keys || keys.has(field))) out[field] = { __type: 'Relation', className: type.targetClass };
    }
  }
  out.objectId = object.objectId;
  out.createdAt = object.createdAt;
  out.updatedAt = object.updatedAt;
  return out;
}

export function fileUrl(ctx: RequestContext, name: string): string {
  const base = typeof ctx.app.record.settings.filesURL === 'string' ? ctx.app.record.settings.filesURL : `${ctx.publicUrl}/files`;
  return `${base}/${encodeURIComponent(ctx.app.record.applicationId)}/${encodeURIComponent(name)}`;
}

export function objectUrl(ctx: RequestContext, className: string, objectId: string): string {
  return `${ctx.publicUrl}/1/classes/${encodeURIComponent(className)}/${encodeURIComponent(objectId)}`;
}
