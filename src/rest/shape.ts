import type { StoredObject } from '../storage/port.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { RequestContext } from './context.ts';
import { renderObject } from './render.ts';
import { parseInclude, resolveIncludes } from './include.ts';
import { parseKeyTree, project, topLevelKeys } from './keys.ts';

/** How results are shaped on the way out: `include` (expand pointers) and `keys` (select fields). */
export interface Shape {
  readonly include: string[][];
  readonly keys: ReturnType<typeof parseKeyTree>;
}

export function parseShape(params: { readonly include?: unknown; readonly keys?: unknown }): Shape {
  return { include: parseInclude(params.include), keys: parseKeyTree(params.keys) };
}

/** Renders stored objects, expands included pointers with the caller's permissions, selects keys. */
export async function shapeResults(ctx: RequestContext, schema: ClassSchema, objects: readonly StoredObject[], shape: Shape): Promise<Record<string, unknown>[]> {
  const keys = topLevelKeys(shape.keys);
  const rendered = objects.map((object) => renderObject(ctx, schema, object, keys && shape.include.length === 0 ? keys : undefined));
  if (shape.include.length > 0) await resolveIncludes(ctx, rendered, shape.include);
  return shape.keys ? rendered.map((object) => project(object, shape.keys!)) : rendered;
}
