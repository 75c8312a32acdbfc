import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { and } from '../query/ast.ts';
import { principals, type RequestContext } from './context.ts';
import { renderObject } from './render.ts';

type Json = Record<string, unknown>;
const SEGMENT = /^[A-Za-z][A-Za-z0-9_]*$/;
const CHUNK = 1000;

/** `include=a,b.c` → sorted paths, each also implying its parents (`b` for `b.c`). */
export function parseInclude(value: unknown): string[][] {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value !== 'string') throw Errors.invalidQuery('include must be a comma-separated string.');
  const paths = new Map<string, string[]>();
  for (const raw of value.split(',')) {
    const trimmed = raw.trim();
    if (!trimmed) continue;
    const segments = trimmed.split('.');
    if (!segments.every((segment) => SEGMENT.test(segment))) throw Errors.invalidKeyName(`Invalid include path ${JSON.stringify(trimmed.slice(0, 80))}.`);
    for (let depth = 1; depth <= segments.length; depth++) paths.set(segments.slice(0, depth).join('.'), segments.slice(0, depth));
  }
  return [...paths.values()].sort((a, b) => a.length - b.length);
}

/**
 * Replaces the Pointers at the include paths by the objects they point to (spec 2.2 `Object`),
 * one query per class per level, with the caller's read permissions: a pointer the caller may not
 * read stays a plain Pointer.
 */
export async function resolveIncludes(ctx: RequestContext, objects: Json[], paths: readonly string[][]): Promise<void> {
  for (const path of paths) {
    const holders = collect(objects, path.slice(0, -1));
    const key = path[path.length - 1]!;
    const wanted = new Map<string, Set<string>>();
    for (const holder of holders) {
      for (const pointer of pointersIn(holder[key])) {
        let ids = wanted.get(pointer.className);
        if (!ids) wanted.set(pointer.className, (ids = new Set()));
        ids.add(pointer.objectId);
      }
    }
    const fetched = new Map<string, Json>();
    for (const [className, ids] of wanted) {
      for (const [id, object] of await fetchObjects(ctx, className, [...ids])) fetched.set(`${className}:${id}`, object);
    }
    for (const holder of holders) holder[key] = expand(holder[key], fetched);
  }
}

async function fetchObjects(ctx: RequestContext, className: string, ids: string[]): Promise<Map<string, Json>> {
  const found = new Map<string, Json>();
  const schema = await ctx.app.schemas.get(className);
  if (!schema) return found;
  const read = principals(ctx);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const where = and([
      { kind: 'in', field: { kind: 'column', column: 'objectId' }, values: chunk, as: 'text' },
      ...(read ? [{ kind: 'acl' as const, access: 'read' as const, principals: read }] : []),
    ]);
    for (const object of await ctx.app.store.find(className, { where, order: [], limit: chunk.length, skip: 0 })) {
      found.set(object.objectId, { __type: 'Object', className, ...renderObject(ctx, schema, object) });
    }
  }
  return found;
}

/** The objects (top-level results, or included objects) that sit at `path`. */
function collect(objects: Json[], path: readonly string[]): Json[] {
  let level: Json[] = objects;
  for (const key of path) {
    const next: Json[] = [];
    for (const object of level) {
      const value = object[key];
      for (const item of Array.isArray(value) ? value : [value]) if (isPlainObject(item)) next.push(item);
    }
    level = next;
  }
  return level;
}

function pointersIn(value: unknown): { className: string; objectId: string }[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((item): item is { className: string; objectId: string } => isPlainObject(item) && (item.__type === 'Pointer' || item.__type === 'Object') && typeof item.className === 'string' && typeof item.objectId === 'string');
}

function expand(value: unknown, fetched: Map<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((item) => expand(item, fetched));
  if (isPlainObject(value) && value.__type === 'Pointer') return fetched.get(`${String(value.className)}:${String(value.objectId)}`) ?? value;
  return value;
}
