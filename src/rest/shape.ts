import type { StoredObject } from '../storage/port.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { RequestContext } from './context.ts';
import { renderObject } from './render.ts';
import { expandIncludeAll, parseInclude, resolveIncludes } from './include.ts';
import { addPath, parentPaths, parseKeyTree, project, type KeyTree } from './keys.ts';

/** How results are shaped on the way out: `include` (expand pointers) and `keys` (select fields). */
export interface Shape {
  readonly include: string[][];
  readonly keys: KeyTree | undefined;
}

/** No include, every key. Shared: nothing changes a Shape once it is made. */
export const NO_SHAPE: Shape = Object.freeze({ include: [], keys: undefined });

/**
 * Parses `include` and `keys` (spec 4.2). A dotted key also includes its parent, as in Parse
 * Server: `keys=post.title` fetches the `post` pointer so that its title can be selected.
 */
export function parseShape(params: { readonly include?: unknown; readonly keys?: unknown }): Shape {
  // Most reads ask for neither, and parsing nothing still made a map and a closure each time.
  if (params.include === undefined && params.keys === undefined) return NO_SHAPE;
  const keys = parseKeyTree(params.keys);
  return { include: parseInclude(params.include, parentPaths(keys)), keys };
}

/** Renders stored objects, expands included pointers with the caller's permissions, selects keys. */
export async function shapeResults(ctx: RequestContext, schema: ClassSchema, objects: readonly StoredObject[], shape: Shape): Promise<Record<string, unknown>[]> {
  let { include, keys } = shape;
  const all = expandIncludeAll(include, schema);
  if (all) {
    include = all.paths;
    // `*` selects what it includes, as Parse's includeAll does alongside `keys`.
    if (keys) {
      keys = new Map(keys);
      for (const field of all.fields) if (!keys.has(field)) addPath(keys, [field]);
    }
  }
  // Only fields that come back are worth including.
  if (keys) {
    const selected = keys;
    include = include.filter((path) => selected.has(path[0]!));
  }
  const topLevel = keys ? new Set([...keys.keys(), 'ACL']) : undefined;
  const rendered = objects.map((object) => renderObject(ctx, schema, object, topLevel));
  if (include.length > 0) await resolveIncludes(ctx, rendered, include);
  return keys ? rendered.map((object) => project(object, keys)) : rendered;
}
