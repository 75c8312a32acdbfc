import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';

type Json = Record<string, unknown>;

/** A tree of selected keys: `keys=a,b.c` → {a: true, b: {c: true}}. */
export type KeyTree = Map<string, KeyTree | true>;

const ALWAYS = ['objectId', 'createdAt', 'updatedAt', '__type', 'className'];
const SEGMENT = /^[A-Za-z0-9_]+$/;

export function parseKeyTree(value: unknown): KeyTree | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw Errors.invalidQuery('keys must be a comma-separated string.');
  const tree: KeyTree = new Map();
  for (const raw of value.split(',')) {
    const trimmed = raw.trim();
    if (!trimmed) continue;
    const segments = trimmed.split('.');
    if (!segments.every((segment) => SEGMENT.test(segment))) throw Errors.invalidKeyName(`Invalid key ${JSON.stringify(trimmed.slice(0, 80))} in keys.`);
    let node = tree;
    segments.forEach((segment, i) => {
      const last = i === segments.length - 1;
      const existing = node.get(segment);
      if (last) node.set(segment, true);
      else if (existing === true) return;
      else {
        const child: KeyTree = existing ?? new Map();
        node.set(segment, child);
        node = child;
      }
    });
  }
  return tree;
}

/** The top-level fields a key tree needs from storage. */
export function topLevelKeys(tree: KeyTree | undefined): ReadonlySet<string> | undefined {
  return tree ? new Set(tree.keys()) : undefined;
}

/**
 * Keeps only the selected keys (spec 4.2 `keys`); the built-in fields always stay, and dot
 * notation selects inside objects and included pointers.
 */
export function project(object: Json, tree: KeyTree): Json {
  const out: Json = {};
  for (const key of ALWAYS) if (key in object) out[key] = object[key];
  for (const [key, child] of tree) {
    if (!(key in object)) continue;
    const value = object[key];
    if (child === true) out[key] = value;
    else if (Array.isArray(value)) out[key] = value.map((item) => (isPlainObject(item) ? project(item, child) : item));
    else out[key] = isPlainObject(value) ? project(value, child) : value;
  }
  return out;
}
