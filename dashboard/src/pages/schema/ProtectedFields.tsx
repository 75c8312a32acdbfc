import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import type { FieldSchema } from '../../api/types.ts';
import { PrincipalSearch, type Principal } from '../shared/PrincipalSearch.tsx';
import { pointerCandidates, principalKey, protectedFieldsOf, withProtectedFields, type Permissions } from './permissions.ts';

/** Fields the server never hides (docs/api.md "Schemas": protected fields are not default fields). */
const DEFAULT_FIELDS: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

/** How an audience of `protectedFields` reads. */
function audienceTitle(audience: string, names: ReadonlyMap<string, string>): string {
  if (audience === '*') return 'anyone';
  if (audience === 'authenticated') return 'signed-in users';
  if (audience.startsWith('role:')) return `role ${audience.slice(5)}`;
  if (audience.startsWith('userField:')) return `users named in ${audience.slice(10)}`;
  return names.get(audience) ?? audience;
}

/** Protected fields: per audience, the columns hidden from it (a check box per column). */
export function ProtectedFields(props: { api: AppApi; fields: Readonly<Record<string, FieldSchema>>; permissions: Permissions | null; names: ReadonlyMap<string, string>; onName(principal: Principal): void; onChange(next: Permissions): void }) {
  const { permissions } = props;
  const [audience, setAudience] = useState('');
  const columns = Object.keys(props.fields).filter((field) => !DEFAULT_FIELDS.has(field));
  const audiences = permissions ? protectedFieldsOf(permissions) : {};
  const offered = ['*', 'authenticated', ...pointerCandidates(props.fields).map((field) => `userField:${field}`)].filter((key) => !(key in audiences));
  const add = (key: string) => {
    if (permissions && key && !(key in audiences)) props.onChange(withProtectedFields(permissions, key, []));
    setAudience('');
  };
  const toggle = (key: string, field: string, hide: boolean) => {
    if (!permissions) return;
    const hidden = (audiences[key] ?? []).filter((name) => name !== field);
    props.onChange(withProtectedFields(permissions, key, hide ? [...hidden, field] : hidden));
  };
  return (
    <section aria-label="Protected fields">
      <h4>Protected fields</h4>
      <p className="muted">Columns hidden from an audience; a caller sees a column unless every audience it belongs to hides it.</p>
      <table className="config-table" aria-label="Protected fields per audience">
        <thead>
          <tr><th>Hidden from</th>{columns.map((field) => <th key={field}>{field}</th>)}<th /></tr>
        </thead>
        <tbody>
          {Object.keys(audiences).length === 0 && <tr><td colSpan={columns.length + 2} className="muted">No audience has hidden columns.</td></tr>}
          {Object.entries(audiences).map(([key, hidden]) => {
            const title = audienceTitle(key, props.names);
            return (
              <tr key={key} data-audience={key}>
                <td>{title}</td>
                {columns.map((field) => (
                  <td key={field}>
                    <input type="checkbox" aria-label={`Hide ${field} from ${title}`} checked={hidden.includes(field)} onChange={(event) => toggle(key, field, event.target.checked)} />
                  </td>
                ))}
                <td>
                  <button type="button" className="link" aria-label={`Stop hiding columns from ${title}`} onClick={() => permissions && props.onChange(withProtectedFields(permissions, key, null))}>Remove</button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="row">
        <select aria-label="Audience to hide columns from" value={audience} disabled={!permissions} onChange={(event) => setAudience(event.target.value)}>
          <option value="">audience…</option>
          {offered.map((key) => <option key={key} value={key}>{audienceTitle(key, props.names)}</option>)}
        </select>
        <button type="button" disabled={!audience} onClick={() => add(audience)}>Add audience</button>
        <PrincipalSearch
          api={props.api}
          roles
          label="Add a user or role to the protected fields"
          onPick={(principal) => {
            props.onName(principal);
            add(principalKey(principal));
          }}
        />
      </div>
    </section>
  );
}
