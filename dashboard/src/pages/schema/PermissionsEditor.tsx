import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema } from '../../api/types.ts';
import { checkPermissions, OPERATIONS, toggled } from './permissions.ts';

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
      <PermissionGrid text={text} onChange={setText} />
      <textarea aria-label="Class-level permissions as JSON" rows={14} cols={60} className="json-editor" value={text} onChange={(e) => setText(e.target.value)} />
      <div>
        <button type="button" onClick={save}>Save permissions</button>
        {problem && <span role="alert" className="problem">{problem}</span>}
      </div>
    </section>
  );
}

const PRINCIPALS = [['*', 'Anyone'], ['requiresAuthentication', 'Signed-in users']] as const;

/** Check boxes for the two common principals of each operation; users, roles and the rest are in the JSON below. */
function PermissionGrid(props: { text: string; onChange(text: string): void }) {
  let current: Record<string, Record<string, unknown> | undefined> | null = null;
  try {
    current = JSON.parse(props.text) as Record<string, Record<string, unknown> | undefined>;
  } catch {
    // Invalid JSON being typed: the boxes wait for it to be valid again.
  }
  return (
    <table className="config-table" aria-label="Permissions per operation">
      <thead><tr><th>Operation</th>{PRINCIPALS.map(([, title]) => <th key={title}>{title}</th>)}<th>Others</th></tr></thead>
      <tbody>
        {OPERATIONS.map((operation) => {
          const grants = current?.[operation] ?? {};
          const others = Object.keys(grants).filter((who) => who !== '*' && who !== 'requiresAuthentication');
          return (
            <tr key={operation}>
              <td>{operation}</td>
              {PRINCIPALS.map(([principal, title]) => (
                <td key={principal}>
                  <input type="checkbox" aria-label={`${title}: ${operation}`} disabled={!current} checked={grants[principal] === true} onChange={(event) => props.onChange(toggled(props.text, operation, principal, event.target.checked))} />
                </td>
              ))}
              <td>{others.join(', ')}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
