import type { ClassSchema, Where } from '../../api/types.ts';
import { literal } from './filters.ts';

/**
 * The queries behind the pickers of the browser's editors: search-as-you-type lists of a class's
 * objects (a Pointer's target), of the app's users and of its roles (the ACL editor).
 */

/** How many matches a search-as-you-type list shows. */
export const PICK_LIMIT = 10;

/** The String column that names an object of a class, when it has one: name, username or title. */
export function labelField(schema: ClassSchema | undefined): string | undefined {
  return ['name', 'username', 'title'].find((field) => schema?.fields[field]?.type === 'String');
}

/** Objects whose objectId, or label column, starts with the text typed. */
export function pointerSearch(text: string, label: string | undefined): Where {
  const prefix = { $regex: `^${literal(text.trim())}` };
  return label ? { $or: [{ objectId: prefix }, { [label]: prefix }] } : { objectId: prefix };
}

/** Users whose username starts with the text typed. */
export function userSearch(text: string): Where {
  return { username: { $regex: `^${literal(text.trim())}` } };
}

export type Access = { readonly read: boolean; readonly write: boolean };

/** An ACL as the editor's rows: principal → read/write; a value that is no ACL gives none. */
export function aclEntries(value: unknown): [string, Access][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, { read?: unknown; write?: unknown }>).map(([principal, access]) => [principal, { read: access?.read === true, write: access?.write === true }]);
}

/** The rows back to the ACL the API takes: `false` entries left out, a principal with neither dropped. */
export function aclValue(entries: readonly (readonly [string, Access])[]): Record<string, { read?: true; write?: true }> {
  const acl: Record<string, { read?: true; write?: true }> = {};
  for (const [principal, access] of entries) {
    if (!access.read && !access.write) continue;
    acl[principal] = { ...(access.read ? { read: true as const } : {}), ...(access.write ? { write: true as const } : {}) };
  }
  return acl;
}

/** Files shown inline as a thumbnail: the name's extension says an image (a File keeps no content type). */
export function isImageName(name: string): boolean {
  return /\.(png|jpe?g|gif|webp|avif|svg|bmp|ico)$/i.test(name);
}
