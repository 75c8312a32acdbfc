import type { StoredObject } from '../storage/port.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { RequestContext } from './context.ts';
import { renderObject } from './render.ts';
import { expandIncludeAll, parseInclude, resolveIncludes } from './include.ts';
import { addPath, excludedWhole, excludeFrom, parentPaths, parseKeyTree, project, type KeyTree } from './keys.ts';

/**
 * How results are shaped on the way out: `include` (expand pointers), `keys` (select fields) and
 * `excludeKeys` (leave fields out).
 */
export interface Shape {
  readonly include: string[][];
  readonly keys: KeyTree | undefined;
  readonly exclude: KeyTree | undefined;
}

/** No include, every key. Shared: nothing changes a Shape once it is made. */
export const NO_SHAPE: Shape = Object.freeze({ include: [], keys: undefined, exclude: undefined });

/**
 * Parses `include`, `keys` and `excludeKeys` (spec 4.2). A dotted key, selected or left out,
 * also includes its parent, as in Parse Server: `keys=post.title` fetches the `post` pointer so
 * that its title can be selected, `excludeKeys=post.body` so that its body can be left out.
 */
export function parseShape(params: { readonly include?: unknown; readonly keys?: unknown; readonly excludeKeys?: unknown }): Shape {
  // Most reads ask for none, and parsing nothing still made a map and a closure each time.
  if (params.include === undefined && params.keys === undefined && params.excludeKeys === undefined) return NO_SHAPE;
  const keys = parseKeyTree(params.keys);
  const excluded = parseKeyTree(params.excludeKeys, 'excludeKeys');
  const exclude = excluded && excluded.size > 0 ? excluded : undefined;
  return { include: parseInclude(params.include, [...parentPaths(keys), ...parentPaths(exclude)]), keys, exclude };
}

/** Renders stored objects, expands included pointers with the caller's permissions, selects keys. */
export async function shapeResults(ctx: RequestContext, schema: ClassSchema, objects: readonly StoredObject[], shape: Shape): Promise<Record<string, unknown>[]> {
  let { include, keys } = shape;
  const { exclude } = shape;
  const all = expandIncludeAll(include, schema);
  if (all) {
    include = all.paths;
    // `*` selects what it includes, as Parse's includeAll does alongside `keys`.
    if (keys) {
      keys = new Map(keys);
      for (const field of all.fields) if (!keys.has(field)) addPath(keys, [field]);
    }
  }
  // Only fields that come back are worth including; excludeKeys wins over keys and include.
  if (keys) {
    const selected = keys;
    include = include.filter((path) => selected.has(path[0]!));
  }
  if (exclude) include = include.filter((path) => !excludedWhole(exclude, path));
  const topLevel = keys ? new Set([...keys.keys(), 'ACL']) : undefined;
  const rendered = objects.map((object) => renderObject(ctx, schema, object, topLevel));
  if (include.length > 0) await resolveIncludes(ctx, rendered, include);
  const selected = keys ? rendered.map((object) => project(object, keys)) : rendered;
  return exclude ? selected.map((object) => excludeFrom(object, exclude)) : selected;
}
