import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ParseObject } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { UserPicker } from './UserPicker.tsx';

/** Roles are few (tens, not millions): one page of them, by name. */
const ROLE_LIMIT = 1000;

type Relation = 'users' | 'roles';

/** Members read at a time (the query limit); "More" reads the next page. */
const MEMBER_PAGE = 1000;

function pointer(className: string, objectId: string) {
  return { __type: 'Pointer', className, objectId };
}

/** The app's roles: list, create, and a role's users and child roles added and removed through its relations. */
export function RolesPage(props: { applicationId: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const [roles, setRoles] = useState<readonly ParseObject[] | null>(null);
  const [open, setOpen] = useState<ParseObject | null>(null);
  const [name, setName] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const load = useCallback(() => {
    api?.find('_Role', { order: 'name', limit: ROLE_LIMIT }).then(setRoles, (error: unknown) => setNotice(failureText(error)));
  }, [api]);
  useEffect(load, [load]);

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  const create = async () => {
    if (!name.trim()) return setProblem('A role needs a name.');
    try {
      // Anyone may read a role (so that ACLs naming it can be checked); only the master key changes it.
      await api.create('_Role', { name: name.trim(), ACL: { '*': { read: true } } });
      setNotice(`Created the role ${name.trim()}.`);
      setProblem(null);
      setName('');
      load();
    } catch (error) {
      setProblem(failureText(error));
    }
  };

  return (
    <section className="roles-page">
      <h2>Roles</h2>
      {notice && <p role="status" className="notice">{notice}</p>}
      {roles === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <table className="config-table" aria-label="Roles">
          <thead>
            <tr><th>Name</th><th>objectId</th><th /></tr>
          </thead>
          <tbody>
            {roles.length === 0 && <tr><td colSpan={3} className="muted">No roles yet.</td></tr>}
            {roles.map((role) => (
              <tr key={role.objectId} data-role={String(role.name)}>
                <td>{String(role.name)}</td>
                <td>{role.objectId}</td>
                <td><button type="button" aria-label={`Open the role ${String(role.name)}`} onClick={() => setOpen(role)}>Members</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="param-form" onSubmit={(event) => { event.preventDefault(); void create(); }}>
        <input aria-label="Name of the new role" placeholder="name" value={name} onChange={(event) => setName(event.target.value)} />
        <button type="submit">Create role</button>
        {problem && <span role="alert" className="problem">{problem}</span>}
      </form>
      {open && <RoleMembers key={open.objectId} api={api} role={open} />}
    </section>
  );
}

/** One role's `users` and `roles` relations, read with `$relatedTo` and changed with AddRelation/RemoveRelation. */
function RoleMembers(props: { api: AppApi; role: ParseObject }) {
  const { api, role } = props;
  const roleName = String(role.name);
  const [members, setMembers] = useState<{ users: readonly ParseObject[]; roles: readonly ParseObject[] } | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  // Whether a relation may hold members past those shown: a full page was read.
  const [more, setMore] = useState<Record<Relation, boolean>>({ users: false, roles: false });

  /** One keyset page of a relation's members by objectId, after the last one shown (never skip): any number can be listed. */
  const page = useCallback(
    (key: Relation, after?: string) =>
      api.find(key === 'users' ? '_User' : '_Role', { where: { $relatedTo: { object: pointer('_Role', role.objectId), key }, ...(after ? { objectId: { $gt: after } } : {}) }, order: 'objectId', limit: MEMBER_PAGE }),
    [api, role.objectId],
  );
  const load = useCallback(async () => {
    try {
      const [users, roles] = await Promise.all([page('users'), page('roles')]);
      setMembers({ users, roles });
      setMore({ users: users.length === MEMBER_PAGE, roles: roles.length === MEMBER_PAGE });
    } catch (error) {
      setStatus(failureText(error));
    }
  }, [page]);
  useEffect(() => void load(), [load]);
  const loadMore = async (key: Relation) => {
    try {
      const next = await page(key, members?.[key].at(-1)?.objectId);
      setMembers((current) => current && { ...current, [key]: [...current[key], ...next] });
      setMore((current) => ({ ...current, [key]: next.length === MEMBER_PAGE }));
    } catch (error) {
      setStatus(failureText(error));
    }
  };

  const change = async (relation: Relation, op: 'AddRelation' | 'RemoveRelation', member: ParseObject, said: string) => {
    try {
      const className = relation === 'users' ? '_User' : '_Role';
      await api.update('_Role', role.objectId, { [relation]: { __op: op, objects: [pointer(className, member.objectId)] } });
      setStatus(said);
      await load();
    } catch (error) {
      setStatus(failureText(error));
    }
  };
  const add = async (relation: Relation, text: string) => {
    const field = relation === 'users' ? 'username' : 'name';
    try {
      const [found] = await api.find(relation === 'users' ? '_User' : '_Role', { where: { [field]: text }, limit: 1 });
      if (!found) return setStatus(relation === 'users' ? `No user is named ${text}.` : `No role is named ${text}.`);
      if (relation === 'roles' && found.objectId === role.objectId) return setStatus('A role cannot be its own child.');
      await change(relation, 'AddRelation', found, `Added ${text} to ${roleName}.`);
    } catch (error) {
      setStatus(failureText(error));
    }
  };

  return (
    <section aria-label={`Members of ${roleName}`} className="role-members">
      <h3>Role {roleName}</h3>
      {status && <p role="status" className="notice">{status}</p>}
      {members === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <div className="row">
          <MemberList title="Users" label="user" relation="users" roleName={roleName} members={members.users} field="username" onAdd={add} onRemove={(member, text) => change('users', 'RemoveRelation', member, `Removed ${text} from ${roleName}.`)}>
            <UserPicker api={api} roleName={roleName} members={members.users} onTyped={(text) => add('users', text)} onPick={(user, name) => change('users', 'AddRelation', user, `Added ${name} to ${roleName}.`)} />
          </MemberList>
          <MemberList title="Child roles" label="role" relation="roles" roleName={roleName} members={members.roles} field="name" onAdd={add} onRemove={(member, text) => change('roles', 'RemoveRelation', member, `Removed ${text} from ${roleName}.`)} />
        </div>
      )}
      {members && (more.users || more.roles) && (
        <div className="row">
          <span className="muted">Showing {members.users.length} users and {members.roles.length} child roles, by objectId.</span>
          {more.users && <button type="button" onClick={() => void loadMore('users')}>More users</button>}
          {more.roles && <button type="button" onClick={() => void loadMore('roles')}>More child roles</button>}
        </div>
      )}
    </section>
  );
}

function MemberList(props: {
  title: string;
  label: 'user' | 'role';
  relation: Relation;
  roleName: string;
  members: readonly ParseObject[];
  field: 'username' | 'name';
  onAdd(relation: Relation, text: string): Promise<void>;
  onRemove(member: ParseObject, text: string): Promise<void>;
  /** Replaces the typed-name form (the users list picks from the app's users). */
  children?: ReactNode;
}) {
  const [text, setText] = useState('');
  return (
    <div className="member-list">
      <h4>{props.title}</h4>
      <ul aria-label={`${props.title} of ${props.roleName}`}>
        {props.members.length === 0 && <li className="muted">None.</li>}
        {props.members.map((member) => {
          const name = String(member[props.field] ?? member.objectId);
          return (
            <li key={member.objectId}>
              {name}{' '}
              <button type="button" aria-label={`Remove the ${props.label} ${name} from ${props.roleName}`} onClick={() => void props.onRemove(member, name)}>Remove</button>
            </li>
          );
        })}
      </ul>
      {props.children ?? (
        <form onSubmit={(event) => { event.preventDefault(); if (text.trim()) void props.onAdd(props.relation, text.trim()).then(() => setText('')); }}>
          <input aria-label={`${props.label === 'user' ? 'Username' : 'Role name'} to add to ${props.roleName}`} value={text} onChange={(event) => setText(event.target.value)} />
          <button type="submit">Add {props.label}</button>
        </form>
      )}
    </div>
  );
}
