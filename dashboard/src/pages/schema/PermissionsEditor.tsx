import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema } from '../../api/types.ts';
import { checkPermissions } from './permissions.ts';

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
