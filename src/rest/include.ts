import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { and } from '../query/ast.ts';
import { isSystemClass } from '../schema/names.ts';
import type { ClassSchema } from '../schema/types.ts';
import { findGrant, grantWhere, hiddenFields, shieldOf } from '../auth/clp.ts';
import { principals, type RequestContext } from './context.ts';
import { renderObject } from './render.ts';

type Json = Record<string, unknown>;
const SEGMENT = /^[A-Za-z0-9_]+$/;
/** Ids per query: well under SQLite's bound-parameter limit. */
const CHUNK = 1000;
/** `include=*` (the SDKs' `includeAll()`): every Pointer and Array field of the class. */
export const INCLUDE_ALL = '*';
/** Built-in classes whose objects an include expands under their ACLs and class-level permissions. */
const INCLUDABLE_BUILT_IN: ReadonlySet<string> = new Set(['_User', '_Role']);

/**
 * `include=a,b.c` → paths, each also implying its parents (`b` for `b.c`), parents first. `*`
 * stays a one-segment path of its own, resolved against the class schema by `expandIncludeAll`.
 */
export function parseInclude(value: unknown, implied: readonly string[][] = []): string[][] {
  if (value !== undefined && value !== null && typeof value !== 'string') throw Errors.invalidQuery('include must be a comma-separated string.');
  const paths = new Map<string, string[]>();
  const add = (segments: readonly string[]) => {
    for (let depth = 1; depth <= segments.length; depth++) paths.set(segments.slice(0, depth).join('.'), segments.slice(0, depth));
  };
  for (const raw of typeof value === 'string' ? value.split(',') : []) {
    const trimmed = raw.trim();
    if (!trimmed) continue;
    if (trimmed === INCLUDE_ALL) {
      paths.set(INCLUDE_ALL, [INCLUDE_ALL]);
      continue;
    }
    const segments = trimmed.split('.');
    if (!segments.every((segment) => SEGMENT.test(segment))) throw Errors.invalidKeyName(`Invalid include path ${JSON.stringify(trimmed.slice(0, 80))}.`);
    add(segments);
  }
  for (const segments of implied) add(segments);
  return [...paths.values()].sort((a, b) => a.length - b.length);
}

/** Replaces `*` by the class's Pointer and Array fields (Parse's includeAll); null if there is no `*`. */
export function expandIncludeAll(paths: readonly string[][], schema: ClassSchema): { paths: string[][]; fields: string[] } | null {
  if (!paths.some((path) => path[0] === INCLUDE_ALL)) return null;
  const fields = Object.entries(schema.fields)
    .filter(([, type]) => type.type === 'Pointer' || type.type === 'Array')
    .map(([name]) => name);
  const rest = paths.filter((path) => path[0] !== INCLUDE_ALL);
  const known = new Set(rest.map((path) => path.join('.')));
  const added = fields.filter((field) => !known.has(field)).map((field) => [field]);
  return { paths: [...added, ...rest].sort((a, b) => a.length - b.length), fields };
}

/**
 * Replaces the Pointers at the include paths by the objects they point to (spec 2.2 `Object`),
 * one query per class per level, with the caller's read permissions: a pointer the caller may not
 * read, or whose object is gone, stays a plain Pointer.
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
    if (wanted.size === 0) continue;
    const fetched = new Map<string, Json>();
    for (const [className, ids] of wanted) {
      for (const [id, object] of await fetchObjects(ctx, className, [...ids])) fetched.set(`${className}:${id}`, object);
    }
    for (const holder of holders) holder[key] = expand(holder[key], fetched);
  }
}

async function fetchObjects(ctx: RequestContext, className: string, ids: string[]): Promise<Map<string, Json>> {
  const found = new Map<string, Json>();
  // Other built-in classes (sessions, installations) have rules of their own that an include
  // does not know: only the master key expands pointers to them.
  if (isSystemClass(className) && !INCLUDABLE_BUILT_IN.has(className) && !ctx.auth.isMaster) return found;
  const schema = await ctx.app.schemas.get(className);
  if (!schema) return found;
  // What a direct read would refuse stays a plain Pointer: the `get` permission, the ACL, the
  // grant's user fields; protected fields are left out as on a direct read.
  const grant = findGrant(ctx.auth, schema, 'get');
  if (!grant) return found;
  const read = principals(ctx);
  const shield = shieldOf(ctx.auth, schema);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    // Without user fields in the grant, each object is read as a direct get reads it: the
    // store answers the reads of one moment with one statement over their ids, on a plan the
    // database keeps (sql/lookup-batcher.ts).
    const objects = grant.userFields
      ? await ctx.app.store.find(className, {
          where: and([
            { kind: 'in', field: { kind: 'column', column: 'objectId' }, values: chunk, as: 'text' },
            ...(read ? [{ kind: 'acl' as const, access: 'read' as const, principals: read }] : []),
            grantWhere(grant, schema, ctx.auth.userId),
          ]),
          order: [],
          limit: chunk.length,
          skip: 0,
        })
      : (await Promise.all(chunk.map((id) => ctx.app.store.get(className, id, read)))).filter((object) => object !== null);
    for (const object of objects) {
      const rendered = renderObject(ctx, schema, object);
      if (shield) for (const field of hiddenFields(shield, object, ctx.auth.userId)) delete rendered[field];
      // As on GET /1/users/<objectId>: a user's linked accounts are shown to that user only.
      if (className === '_User' && !ctx.auth.isMaster && object.objectId !== ctx.auth.userId) delete rendered.authData;
      found.set(object.objectId, { __type: 'Object', className, ...rendered });
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
  return items.filter((item): item is { className: string; objectId: string } => isPlainObject(item) && item.__type === 'Pointer' && typeof item.className === 'string' && typeof item.objectId === 'string');
}

function expand(value: unknown, fetched: Map<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((item) => expand(item, fetched));
  if (isPlainObject(value) && value.__type === 'Pointer') return fetched.get(`${String(value.className)}:${String(value.objectId)}`) ?? value;
  return value;
}
