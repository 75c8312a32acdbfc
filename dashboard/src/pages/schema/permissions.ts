export const OPERATIONS = ['find', 'count', 'get', 'create', 'update', 'delete', 'addField'] as const;
const OTHER_KEYS: ReadonlySet<string> = new Set(['protectedFields', 'readUserFields', 'writeUserFields']);

/**
 * The class-level permissions as JSON, checked before they are sent: an object whose keys are the
 * operations (each `{"*": true, "role:admin": true, "requiresAuthentication": true, …}`) or
 * protectedFields / readUserFields / writeUserFields. The server checks the rest (docs/api.md).
 */
export function checkPermissions(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('The permissions are not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('The permissions are a JSON object.');
  for (const [key, value] of Object.entries(parsed)) {
    if (OTHER_KEYS.has(key)) continue;
    if (!(OPERATIONS as readonly string[]).includes(key)) throw new Error(`"${key}" is no operation (${OPERATIONS.join(', ')}, or ${[...OTHER_KEYS].join(', ')}).`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${key} is an object such as {"*": true}.`);
    for (const [who, allowed] of Object.entries(value)) {
      if (allowed !== true && !(key !== 'addField' && who === 'pointerFields' && Array.isArray(allowed))) throw new Error(`${key}.${who} is true (leave a principal out to refuse it).`);
    }
  }
  return parsed as Record<string, unknown>;
}

/** The text with one principal of one operation granted or not; the text as it was when it is not valid JSON. */
export function toggled(text: string, operation: string, principal: string, on: boolean): string {
  const permissions = parsePermissions(text);
  return permissions ? permissionsText(withGrant(permissions, operation, principal, on)) : text;
}

/** The permissions as an object the editors change; each change gives a new object (never mutated). */
export type Permissions = Readonly<Record<string, unknown>>;
type Grants = Readonly<Record<string, unknown>>;

/** The permissions of a text, or null while it is not a JSON object (the editors then wait). */
export function parsePermissions(text: string): Permissions | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Permissions) : null;
  } catch {
    return null;
  }
}

export function permissionsText(permissions: Permissions): string {
  return JSON.stringify(permissions, null, 2);
}

function grantsOf(permissions: Permissions, operation: string): Grants {
  const grants = permissions[operation];
  return typeof grants === 'object' && grants !== null && !Array.isArray(grants) ? (grants as Grants) : {};
}

/** The principals granted something beyond anyone and signed-in users (user ids and `role:<name>`), in the order met. */
export function otherPrincipals(permissions: Permissions): string[] {
  const found = new Set<string>();
  for (const operation of OPERATIONS) {
    for (const who of Object.keys(grantsOf(permissions, operation))) if (who !== '*' && who !== 'requiresAuthentication' && who !== 'pointerFields') found.add(who);
  }
  return [...found];
}

export function withGrant(permissions: Permissions, operation: string, principal: string, on: boolean): Permissions {
  const grants: Record<string, unknown> = { ...grantsOf(permissions, operation) };
  if (on) grants[principal] = true;
  else delete grants[principal];
  return { ...permissions, [operation]: grants };
}

/** Where a pointer permission is written: the two lists of their own, or one operation's `pointerFields`. */
export const USER_FIELD_LISTS = ['readUserFields', 'writeUserFields'] as const;
/** Operations `pointerFields` can grant (never create or addField: docs/api.md "Class-level permissions"). */
export const POINTER_OPERATIONS = ['get', 'find', 'count', 'update', 'delete'] as const;

function fieldList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The fields a pointer permission lists: `readUserFields`/`writeUserFields`, or an operation's `pointerFields`. */
export function pointerFieldsOf(permissions: Permissions, where: string): string[] {
  return (USER_FIELD_LISTS as readonly string[]).includes(where) ? fieldList(permissions[where]) : fieldList(grantsOf(permissions, where).pointerFields);
}

/** One field added to or taken from a pointer permission; an emptied list is left out rather than sent empty. */
export function withPointerField(permissions: Permissions, where: string, field: string, on: boolean): Permissions {
  const current = pointerFieldsOf(permissions, where).filter((name) => name !== field);
  const next = on ? [...current, field] : current;
  if ((USER_FIELD_LISTS as readonly string[]).includes(where)) {
    const { [where]: _dropped, ...rest } = permissions;
    return next.length ? { ...rest, [where]: next } : rest;
  }
  const { pointerFields: _old, ...grants } = grantsOf(permissions, where);
  return { ...permissions, [where]: next.length ? { ...grants, pointerFields: next } : grants };
}

/** The fields a pointer permission may name: Pointers to `_User` and Arrays (the server checks the Array holds such Pointers). */
export function pointerCandidates(fields: Readonly<Record<string, { type: string; targetClass?: string }>>): string[] {
  return Object.entries(fields)
    .filter(([, field]) => (field.type === 'Pointer' && field.targetClass === '_User') || field.type === 'Array')
    .map(([name]) => name);
}

/** `protectedFields`: audience (`*`, `authenticated`, a user id, `role:<name>`, `userField:<field>`) → the fields hidden from it. */
export function protectedFieldsOf(permissions: Permissions): Record<string, string[]> {
  const value = permissions.protectedFields;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([audience, fields]) => [audience, fieldList(fields)]));
}

export function withProtectedFields(permissions: Permissions, audience: string, fields: readonly string[] | null): Permissions {
  const { [audience]: _old, ...others } = protectedFieldsOf(permissions);
  return { ...permissions, protectedFields: fields === null ? others : { ...others, [audience]: [...fields] } };
}

/** How permissions name a user (its objectId) or a role (`role:<name>`). */
export function principalKey(principal: { readonly kind: 'user' | 'role'; readonly objectId: string; readonly name: string }): string {
  return principal.kind === 'role' ? `role:${principal.name}` : principal.objectId;
}
