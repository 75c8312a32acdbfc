import { useEffect, useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { navigate } from '../../router.ts';
import { AddColumnForm } from '../browser/SchemaForms.tsx';
import { DeleteClass } from './DeleteClass.tsx';
import { IndexesPanel } from './IndexesPanel.tsx';
import { PermissionsEditor } from './PermissionsEditor.tsx';

/** Fields every class has; the server refuses to remove them, so no button offers it. */
const BUILT_IN: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

/** One class's schema: columns, indexes (with the scans' suggestions) and class-level permissions. */
export function SchemaPage(props: { applicationId: string; className: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const [schema, setSchema] = useState<ClassSchema | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (!api) return;
    api.schema(props.className).then(setSchema, (error: unknown) => setNotice(failureText(error)));
  }, [api, props.className]);

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  return (
    <section className="schema-page">
      <div className="toolbar">
        <h2>Schema of {props.className}</h2>
        <span className="spacer" />
        <button type="button" onClick={() => navigate({ page: 'browser', applicationId: props.applicationId, className: props.className })}>Browse data</button>
        {schema && <DeleteClass api={api} className={props.className} onDeleted={() => navigate({ page: 'browser', applicationId: props.applicationId })} />}
      </div>
      {notice && <p role="status" className="notice">{notice}</p>}
      {schema && (
        <>
          <Columns api={api} schema={schema} onChanged={setSchema} onNotice={setNotice} />
          <IndexesPanel api={api} schema={schema} onChanged={setSchema} onNotice={setNotice} />
          <PermissionsEditor api={api} schema={schema} onChanged={setSchema} onNotice={setNotice} />
        </>
      )}
    </section>
  );
}

interface PanelProps {
  api: AppApi;
  schema: ClassSchema;
  onChanged(schema: ClassSchema): void;
  onNotice(text: string): void;
}

function Columns(props: PanelProps) {
  const { api, schema } = props;
  const [confirm, setConfirm] = useState<string | null>(null);
  const remove = async (name: string) => {
    setConfirm(null);
    try {
      props.onChanged(await api.updateSchema(schema.className, { fields: { [name]: { __op: 'Delete' } } }));
      props.onNotice(`Removed the column ${name} and its values.`);
    } catch (error) {
      props.onNotice(failureText(error));
    }
  };
  return (
    <section aria-label="Columns">
      <h3>Columns</h3>
      <table className="config-table" aria-label="Columns of the class">
        <thead><tr><th>Name</th><th>Type</th><th /></tr></thead>
        <tbody>
          {Object.entries(schema.fields).map(([name, field]) => (
            <tr key={name} data-field={name}>
              <td>{name}</td>
              <td>{field.type}{field.targetClass ? ` → ${field.targetClass}` : ''}</td>
              <td>
                {BUILT_IN.has(name) ? null : confirm === name ? (
                  <span role="alertdialog" aria-label={`Confirm removing ${name}`}>
                    Remove {name} and its values from every object?{' '}
                    <button type="button" className="danger" onClick={() => remove(name)}>Remove</button>
                    <button type="button" onClick={() => setConfirm(null)}>Cancel</button>
                  </span>
                ) : (
                  <button type="button" className="danger" aria-label={`Remove column ${name}`} onClick={() => setConfirm(name)}>Remove</button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <AddColumnForm api={api} className={schema.className} onChanged={props.onChanged} />
    </section>
  );
}
