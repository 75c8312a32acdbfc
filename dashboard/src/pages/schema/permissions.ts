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
  let permissions: Record<string, Record<string, unknown>>;
  try {
    permissions = JSON.parse(text) as Record<string, Record<string, unknown>>;
  } catch {
    return text;
  }
  const grants = { ...(permissions[operation] ?? {}) };
  if (on) grants[principal] = true;
  else delete grants[principal];
  return JSON.stringify({ ...permissions, [operation]: grants }, null, 2);
}
