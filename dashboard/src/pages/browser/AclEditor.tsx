import { useEffect, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import type { ParseObject } from '../../api/types.ts';
import type { Column } from './columns.ts';
import { CellEditor } from './CellEditor.tsx';
import { aclEntries, aclValue, PICK_LIMIT, userSearch, type Access } from './pickers.ts';
import { useSearch } from '../shared/useSearch.ts';

/**
 * An ACL's editor: one row per principal (`*`, a user shown by username, `role:<name>`) with read
 * and write boxes; a user added from a search of usernames, a role from the app's roles. Save
 * writes the ACL; the JSON editor stays one click away.
 */
export function AclEditor(props: { api: AppApi; column: Column; value: unknown; onSave(value: unknown): void; onCancel(): void }) {
  const { api } = props;
  const [asJson, setAsJson] = useState(false);
  const [entries, setEntries] = useState<[string, Access][]>(() => aclEntries(props.value));
  const [usernames, setUsernames] = useState<ReadonlyMap<string, string>>(new Map());
  const [roles, setRoles] = useState<string[]>([]);
  const [role, setRole] = useState('');
  const [userText, setUserText] = useState('');
  const { matches, problem } = useSearch<ParseObject>(userText, (typed) => api.find('_User', { where: userSearch(typed), order: 'username', limit: PICK_LIMIT, keys: ['username'] }));

  useEffect(() => {
    let live = true;
    const ids = entries.map(([principal]) => principal).filter((p) => p !== '*' && !p.startsWith('role:'));
    if (ids.length) {
      api.find('_User', { where: { objectId: { $in: ids } }, keys: ['username'], limit: ids.length }).then(
        (users) => live && setUsernames(new Map(users.map((user) => [user.objectId, String(user.username)]))),
        () => undefined,
      );
    }
    api.find('_Role', { order: 'name', limit: 1000, keys: ['name'] }).then(
      (found) => live && setRoles(found.map((r) => String(r.name))),
      () => undefined,
    );
    return () => {
      live = false;
    };
    // Read once: the users added later are named by the search that found them.
  }, [api]);

  if (asJson) {
    return <CellEditor column={props.column} value={aclValue(entries)} onSave={props.onSave} onCancel={props.onCancel} />;
  }
  const add = (principal: string) => setEntries((current) => (current.some(([p]) => p === principal) ? current : [...current, [principal, { read: true, write: false }]]));
  const set = (principal: string, change: Partial<Access>) => setEntries((current) => current.map(([p, access]) => (p === principal ? [p, { ...access, ...change }] : [p, access])));
  const nameOf = (principal: string) =>
    principal === '*' ? 'Public (*)' : principal.startsWith('role:') ? `Role ${principal.slice(5)}` : `User ${usernames.get(principal) ?? '?'} (${principal})`;

  return (
    <div className="json-editor acl-editor" role="dialog" aria-label={`Edit ${props.column.name}`} onKeyDown={(e) => e.key === 'Escape' && props.onCancel()}>
      <div className="row">
        <strong>{props.column.name}</strong>
        <span className="spacer" />
        <button type="button" onClick={() => setAsJson(true)}>Edit as JSON</button>
      </div>
      {entries.length === 0 ? (
        <p className="muted">No principal: only the master key reads and writes this object.</p>
      ) : (
        <table aria-label="Access">
          <thead><tr><th>Who</th><th>Read</th><th>Write</th><th /></tr></thead>
          <tbody>
            {entries.map(([principal, access]) => (
              <tr key={principal} data-principal={principal}>
                <td>{nameOf(principal)}</td>
                <td><input type="checkbox" aria-label={`Read: ${principal}`} checked={access.read} onChange={(e) => set(principal, { read: e.target.checked })} /></td>
                <td><input type="checkbox" aria-label={`Write: ${principal}`} checked={access.write} onChange={(e) => set(principal, { write: e.target.checked })} /></td>
                <td><button type="button" className="link" aria-label={`Remove ${principal}`} onClick={() => setEntries((current) => current.filter(([p]) => p !== principal))}>Remove</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row">
        {!entries.some(([p]) => p === '*') && <button type="button" onClick={() => add('*')}>Add public</button>}
        <label>
          Add a user
          <input value={userText} placeholder="username starts with…" onChange={(e) => setUserText(e.target.value)} />
        </label>
        <label>
          Add a role
          <select value={role} onChange={(e) => setRole(e.target.value)}>
            <option value="">{roles.length ? 'Choose a role' : 'No role'}</option>
            {roles.map((name) => <option key={name} value={name}>{name}</option>)}
          </select>
        </label>
        <button type="button" disabled={!role} onClick={() => add(`role:${role}`)}>Add role</button>
      </div>
      {problem && <p className="problem">{problem}</p>}
      {matches.length > 0 && (
        <ul className="picks" aria-label="Matching users">
          {matches.map((user) => (
            <li key={user.objectId}>
              <button type="button" onClick={() => {
                setUsernames((current) => new Map(current).set(user.objectId, String(user.username)));
                add(user.objectId);
                setUserText('');
              }}>
                {String(user.username)} ({user.objectId})
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="buttons">
        <button type="button" onClick={() => props.onSave(aclValue(entries))}>Save</button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </div>
  );
}
