import { Errors } from '../errors/index.ts';
import { isPlainObject } from './values.ts';
import { quote } from '../errors/quote.ts';

export type Acl = Readonly<Record<string, { read?: true; write?: true }>>;

export interface Permissions {
  readonly acl: Acl | null;
  readonly rperm: readonly string[];
  readonly wperm: readonly string[];
}

/** No ACL: everyone may read and write (Parse's default for objects saved without one). */
export const PUBLIC: Permissions = Object.freeze({ acl: null, rperm: Object.freeze(['*']), wperm: Object.freeze(['*']) });

const ROLE = /^role:[A-Za-z0-9_ -]+$/;

/**
 * A value that removes an object's ACL: `null`, or the Delete operator the Parse SDKs send for
 * `unset("ACL")` and `clear()`. Either leaves the object without an ACL, that is public.
 */
export function removesAcl(value: unknown): boolean {
  return value === null || (isPlainObject(value) && value.__op === 'Delete' && Object.keys(value).length === 1);
}

/** Checks a wire ACL and derives the permission lists the database filters on. */
export function decodeAcl(value: unknown): Permissions {
  if (!isPlainObject(value)) throw Errors.invalidAcl('An ACL must be an object.');
  const entries: [string, { read?: true; write?: true }][] = [];
  const rperm: string[] = [];
  const wperm: string[] = [];
  for (const [principal, grant] of Object.entries(value)) {
    if (!(principal === '*' || ROLE.test(principal) || /^[A-Za-z0-9_-]{1,64}$/.test(principal))) {
      throw Errors.invalidAcl(`Invalid ACL entry ${quote(principal)}: use "*", a user objectId or "role:<name>".`);
    }
    if (!isPlainObject(grant)) throw Errors.invalidAcl(`ACL entry ${principal} must be an object of read/write.`);
    const entry: { read?: true; write?: true } = {};
    for (const [access, allowed] of Object.entries(grant)) {
      if ((access !== 'read' && access !== 'write') || typeof allowed !== 'boolean') {
        throw Errors.invalidAcl(`ACL entry ${principal}: only "read" and "write" with a boolean are allowed.`);
      }
      if (!allowed) continue;
      entry[access] = true;
      (access === 'read' ? rperm : wperm).push(principal);
    }
    if (entry.read || entry.write) entries.push([principal, entry]);
  }
  // fromEntries keeps a user id such as "__proto__" as an own key rather than a prototype.
  return { acl: Object.fromEntries(entries), rperm, wperm };
}
