import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema } from '../../api/types.ts';

const OPERATIONS = ['find', 'count', 'get', 'create', 'update', 'delete', 'addField'] as const;
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

export function PermissionsEditor(props: { api: AppApi; schema: ClassSchema; onChanged(schema: ClassSchema): void; onNotice(text: string): void }) {
  const { api, schema } = props;
  const [text, setText] = useState(() => JSON.stringify(schema.classLevelPermissions ?? {}, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const save = async () => {
    setProblem(null);
    let permissions: Record<string, unknown>;
    try {
      permissions = checkPermissions(text);
    } catch (error) {
      return setProblem((error as Error).message);
    }
    try {
      const changed = await api.updateSchema(schema.className, { classLevelPermissions: permissions });
      props.onChanged(changed);
      setText(JSON.stringify(changed.classLevelPermissions ?? {}, null, 2));
      props.onNotice('Saved the class-level permissions.');
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  return (
    <section aria-label="Class-level permissions">
      <h3>Class-level permissions</h3>
      <p className="muted">Per operation, who may: <code>"*"</code> (anyone), a user id, <code>"role:&lt;name&gt;"</code>, <code>"requiresAuthentication"</code>.</p>
      <textarea aria-label="Class-level permissions as JSON" rows={14} cols={60} className="json-editor" value={text} onChange={(e) => setText(e.target.value)} />
      <div>
        <button type="button" onClick={save}>Save permissions</button>
        {problem && <span role="alert" className="problem">{problem}</span>}
      </div>
    </section>
  );
}
