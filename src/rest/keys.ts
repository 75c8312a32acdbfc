import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';

type Json = Record<string, unknown>;

/** A tree of selected keys: `keys=a,b.c` → {a: true, b: {c: true}}. */
export type KeyTree = Map<string, KeyTree | true>;

/**
 * Fields an object keeps whatever `keys` says. Spec 4.2 names the three dates and the id; the
 * ACL is kept too, as Parse Server does, so an SDK that saves a partly fetched object still
 * knows who may read it.
 */
const ALWAYS_TOP = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);
/** An included pointer (`__type: Object`) also keeps what makes it a pointer. */
const ALWAYS_INCLUDED = new Set([...ALWAYS_TOP, '__type', 'className']);
const SEGMENT = /^[A-Za-z0-9_]+$/;

/** `keys=a,b.c` → the tree of selected keys; a malformed key answers 105. `name`: the parameter's. */
export function parseKeyTree(value: unknown, name: 'keys' | 'excludeKeys' = 'keys'): KeyTree | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw Errors.invalidQuery(`${name} must be a comma-separated string.`);
  const tree: KeyTree = new Map();
  for (const raw of value.split(',')) {
    const trimmed = raw.trim();
    if (!trimmed) continue;
    const segments = trimmed.split('.');
    if (!segments.every((segment) => SEGMENT.test(segment))) throw Errors.invalidKeyName(`Invalid key ${JSON.stringify(trimmed.slice(0, 80))} in ${name}.`);
    addPath(tree, segments);
  }
  return tree;
}

/** Adds one dotted key; selecting a whole field wins over selecting parts of it. */
export function addPath(tree: KeyTree, segments: readonly string[]): void {
  let node = tree;
  for (const [i, segment] of segments.entries()) {
    if (i === segments.length - 1) {
      node.set(segment, true);
      return;
    }
    const existing = node.get(segment);
    if (existing === true) return;
    const child: KeyTree = existing ?? new Map();
    node.set(segment, child);
    node = child;
  }
}

/** The dotted keys' parents (`a.b.c` → `a.b`): Parse fetches those pointers to select inside them. */
export function parentPaths(tree: KeyTree | undefined): string[][] {
  const paths: string[][] = [];
  const walk = (node: KeyTree, prefix: string[]) => {
    for (const [key, child] of node) {
      if (child === true) continue;
      paths.push([...prefix, key]);
      walk(child, [...prefix, key]);
    }
  };
  if (tree) walk(tree, []);
  return paths;
}

/**
 * Keeps only the selected keys of a rendered object (spec 4.2 `keys`). The built-in fields always
 * stay; dot notation selects inside Object fields, arrays of objects and included pointers.
 */
export function project(object: Json, tree: KeyTree): Json {
  return select(object, tree, ALWAYS_TOP);
}

function select(object: Json, tree: KeyTree, always: ReadonlySet<string>): Json {
  const out: Json = {};
  // The object's own key order, so a projected object reads like the whole one.
  for (const [key, value] of Object.entries(object)) {
    const child = tree.get(key);
    if (child === undefined) {
      if (always.has(key)) out[key] = value;
    } else {
      out[key] = child === true ? value : inside(value, child);
    }
  }
  return out;
}

function inside(value: unknown, tree: KeyTree): unknown {
  if (Array.isArray(value)) return value.map((item) => inside(item, tree));
  if (!isPlainObject(value)) return value;
  if (value.__type === 'Object') return select(value, tree, ALWAYS_INCLUDED);
  // Other typed values (a Pointer, a Date, a GeoPoint…) have no fields of their own to choose.
  if (typeof value.__type === 'string') return value;
  return select(value, tree, NOTHING);
}

const NOTHING: ReadonlySet<string> = new Set();

/**
 * Leaves the keys of `tree` out of a rendered object (`excludeKeys`, the SDKs' `query.exclude`):
 * a whole field, or with dot notation a key inside Object fields, arrays of objects and included
 * pointers. The fields `keys` always keeps stay whatever is excluded, as in Parse Server, which
 * ignores them there.
 */
export function excludeFrom(object: Json, tree: KeyTree): Json {
  return without(object, tree, ALWAYS_TOP);
}

/** Whether `path` (an include path) lies in a field left out whole. */
export function excludedWhole(tree: KeyTree, path: readonly string[]): boolean {
  let node: KeyTree = tree;
  for (const segment of path) {
    const child = node.get(segment);
    if (child === true) return true;
    if (child === undefined) return false;
    node = child;
  }
  return false;
}

function without(object: Json, tree: KeyTree, kept: ReadonlySet<string>): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    const child = kept.has(key) ? undefined : tree.get(key);
    if (child === true) continue;
    out[key] = child === undefined ? value : withoutInside(value, child);
  }
  return out;
}

function withoutInside(value: unknown, tree: KeyTree): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutInside(item, tree));
  if (!isPlainObject(value)) return value;
  if (value.__type === 'Object') return without(value, tree, ALWAYS_INCLUDED);
  if (typeof value.__type === 'string') return value;
  return without(value, tree, NOTHING);
}
