import { useEffect, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema } from '../../api/types.ts';
import { PrincipalSearch, type Principal } from '../shared/PrincipalSearch.tsx';
import { checkPermissions, OPERATIONS, otherPrincipals, parsePermissions, principalKey, permissionsText, protectedFieldsOf, withGrant, type Permissions } from './permissions.ts';
import { PointerPermissions } from './PointerPermissions.tsx';
import { ProtectedFields } from './ProtectedFields.tsx';

/**
 * The class-level permissions: one JSON text is the truth, and the check boxes, the pointer
 * permissions and the protected fields are editors that write into it, so whatever they do not
 * cover can still be typed. Saved as a whole, checked first here and then by the server.
 */
export function PermissionsEditor(props: { api: AppApi; schema: ClassSchema; onChanged(schema: ClassSchema): void; onNotice(text: string): void }) {
  const { api, schema } = props;
  const [text, setText] = useState(() => permissionsText(schema.classLevelPermissions ?? {}));
  const [problem, setProblem] = useState<string | null>(null);
  const names = usePrincipalNames(api, text);
  const current = parsePermissions(text);
  const change = (next: Permissions) => setText(permissionsText(next));

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
      setText(permissionsText(changed.classLevelPermissions ?? {}));
      props.onNotice('Saved the class-level permissions.');
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  return (
    <section aria-label="Class-level permissions">
      <h3>Class-level permissions</h3>
      <p className="muted">Per operation, who may: anyone (<code>"*"</code>), signed-in users (<code>"requiresAuthentication"</code>), a user or a role picked below. The editors write into the JSON, which is saved as a whole.</p>
      <PermissionGrid api={api} permissions={current} names={names.known} onName={names.remember} onChange={change} />
      <PointerPermissions fields={schema.fields} permissions={current} onChange={change} />
      <ProtectedFields api={api} fields={schema.fields} permissions={current} names={names.known} onName={names.remember} onChange={change} />
      <h4>As JSON</h4>
      <textarea aria-label="Class-level permissions as JSON" rows={14} cols={60} className="json-editor" value={text} onChange={(e) => setText(e.target.value)} />
      <div>
        <button type="button" onClick={save}>Save permissions</button>
        {problem && <span role="alert" className="problem">{problem}</span>}
      </div>
    </section>
  );
}

/** A principal as a person reads it: a user id by its username when known, `role:<name>` as "role <name>". */
export function principalTitle(principal: string, names: ReadonlyMap<string, string>): string {
  if (principal === '*') return 'Anyone';
  if (principal === 'requiresAuthentication') return 'Signed-in users';
  if (principal.startsWith('role:')) return `role ${principal.slice(5)}`;
  return names.get(principal) ?? principal;
}

/** The usernames of the user ids the permissions name, read once per new id; picked users are remembered as picked. */
function usePrincipalNames(api: AppApi, text: string) {
  const [known, setKnown] = useState<ReadonlyMap<string, string>>(new Map());
  const permissions = parsePermissions(text);
  const ids = permissions ? [...otherPrincipals(permissions), ...Object.keys(protectedFieldsOf(permissions))].filter((who) => isUserId(who) && !known.has(who)) : [];
  const wanted = [...new Set(ids)].sort().join(',');
  useEffect(() => {
    if (!wanted) return;
    const idList = wanted.split(',');
    api.find('_User', { where: { objectId: { $in: idList } }, keys: ['username'], limit: idList.length }).then(
      (users) => setKnown((map) => new Map([...map, ...users.map((user) => [user.objectId, String(user.username ?? user.objectId)] as const)])),
      // A name that cannot be read is shown as its id.
      () => undefined,
    );
  }, [api, wanted]);
  const remember = (principal: Principal) => {
    if (principal.kind === 'user') setKnown((map) => new Map([...map, [principal.objectId, principal.name]]));
  };
  return { known, remember };
}

function isUserId(who: string): boolean {
  return who !== '*' && who !== 'requiresAuthentication' && who !== 'authenticated' && !who.startsWith('role:') && !who.startsWith('userField:');
}

/** A column per principal and a check box per operation; users and roles are added from the search. */
function PermissionGrid(props: { api: AppApi; permissions: Permissions | null; names: ReadonlyMap<string, string>; onName(principal: Principal): void; onChange(next: Permissions): void }) {
  const { permissions } = props;
  // Picked principals stay as columns until the page is left, even while they are granted nothing yet.
  const [picked, setPicked] = useState<readonly string[]>([]);
  const others = permissions ? otherPrincipals(permissions) : [];
  const columns = ['*', 'requiresAuthentication', ...others, ...picked.filter((key) => !others.includes(key))];
  const pick = (principal: Principal) => {
    props.onName(principal);
    const key = principalKey(principal);
    setPicked((current) => (current.includes(key) ? current : [...current, key]));
  };
  return (
    <>
      <table className="config-table" aria-label="Permissions per operation">
        <thead><tr><th>Operation</th>{columns.map((who) => <th key={who}>{principalTitle(who, props.names)}</th>)}</tr></thead>
        <tbody>
          {OPERATIONS.map((operation) => (
            <tr key={operation}>
              <td>{operation}</td>
              {columns.map((who) => {
                const title = principalTitle(who, props.names);
                const grants = permissions?.[operation] as Record<string, unknown> | undefined;
                return (
                  <td key={who}>
                    <input type="checkbox" aria-label={`${title}: ${operation}`} disabled={!permissions} checked={grants?.[who] === true} onChange={(event) => permissions && props.onChange(withGrant(permissions, operation, who, event.target.checked))} />
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <PrincipalSearch api={props.api} roles label="Add a user or role to the permissions" onPick={pick} />
    </>
  );
}
