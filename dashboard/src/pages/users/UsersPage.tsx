import { useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ParseObject } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { useObjectIdPages } from '../shared/useObjectIdPages.ts';
import { usersQuery } from './users-query.ts';

const PAGE = 50;

/** The app's users: search, keyset pages, create, reset a password, revoke sessions; all as the master key. */
export function UsersPage(props: { applicationId: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const [search, setSearch] = useState('');
  const { rows: users, more, load, notice, setNotice } = useObjectIdPages(
    api ? (after) => api.find('_User', { where: usersQuery(search, after), order: 'objectId', limit: PAGE }) : null,
    PAGE,
    [api, search],
  );

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  const done = (text: string) => {
    setNotice(text);
    void load(false);
  };

  return (
    <section className="users-page">
      <h2>Users</h2>
      {notice && <p role="status" className="notice">{notice}</p>}
      <input aria-label="Search users" placeholder="username or email starts with…" value={search} onChange={(event) => setSearch(event.target.value)} />
      {users === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <table className="config-table" aria-label="Users">
          <thead>
            <tr><th>Username</th><th>Email</th><th>objectId</th><th>Created</th><th /></tr>
          </thead>
          <tbody>
            {users.length === 0 && <tr><td colSpan={5} className="muted">No users.</td></tr>}
            {users.map((user) => <UserRow key={user.objectId} api={api} user={user} onDone={done} />)}
          </tbody>
        </table>
      )}
      {more && <button type="button" onClick={() => void load(true)}>More users</button>}
      <h3>Create a user</h3>
      <CreateUser api={api} onDone={done} />
    </section>
  );
}

function UserRow(props: { api: AppApi; user: ParseObject; onDone(text: string): void }) {
  const { api, user } = props;
  const name = String(user.username ?? user.objectId);
  const [resetting, setResetting] = useState(false);
  const [password, setPassword] = useState('');
  const [confirmRevoke, setConfirmRevoke] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const reset = async () => {
    if (!password) return setProblem('Type the new password.');
    try {
      // The master key may set any user's password; the server hashes it like a sign-up's.
      await api.update('_User', user.objectId, { password });
      setResetting(false);
      setPassword('');
      props.onDone(`Set a new password for ${name}.`);
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  const revoke = async () => {
    setConfirmRevoke(false);
    try {
      const where = { user: { __type: 'Pointer', className: '_User', objectId: user.objectId } };
      let revoked = 0;
      // Pages of 1,000 until none is left: each page read is deleted before the next is asked for.
      for (;;) {
        const sessions = await api.find('_Session', { where, keys: ['objectId'], limit: 1000 });
        if (sessions.length === 0) break;
        const refused = await api.deleteMany('_Session', sessions.map((s) => s.objectId));
        if (refused.length) return setProblem(`${refused.length} sessions were not deleted: ${refused[0]!.error}`);
        revoked += sessions.length;
      }
      props.onDone(`Revoked ${revoked} ${revoked === 1 ? 'session' : 'sessions'} of ${name}.`);
    } catch (error) {
      setProblem(failureText(error));
    }
  };

  return (
    <tr data-user={name}>
      <td>{name}</td>
      <td>{typeof user.email === 'string' ? user.email : ''}</td>
      <td>{user.objectId}</td>
      <td>{typeof user.createdAt === 'string' ? user.createdAt : ''}</td>
      <td>
        {resetting ? (
          <span>
            <input aria-label={`New password for ${name}`} type="password" value={password} onChange={(event) => setPassword(event.target.value)} />
            <button type="button" onClick={() => void reset()}>Save password</button>
            <button type="button" onClick={() => setResetting(false)}>Cancel</button>
          </span>
        ) : (
          <button type="button" aria-label={`Reset the password of ${name}`} onClick={() => setResetting(true)}>Reset password</button>
        )}
        {confirmRevoke ? (
          <span role="alertdialog" aria-label={`Confirm revoking the sessions of ${name}`}>
            {' '}Sign {name} out everywhere?{' '}
            <button type="button" className="danger" onClick={() => void revoke()}>Revoke</button>
            <button type="button" onClick={() => setConfirmRevoke(false)}>Cancel</button>
          </span>
        ) : (
          <button type="button" className="danger" aria-label={`Revoke the sessions of ${name}`} onClick={() => setConfirmRevoke(true)}>Revoke sessions</button>
        )}
        {problem && <span role="alert" className="problem">{problem}</span>}
      </td>
    </tr>
  );
}

function CreateUser(props: { api: AppApi; onDone(text: string): void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async () => {
    if (!username || !password) return setProblem('A user needs a username and a password.');
    try {
      await props.api.create('_User', { username, password, ...(email ? { email } : {}) });
      setProblem(null);
      setUsername('');
      setPassword('');
      setEmail('');
      props.onDone(`Created ${username}.`);
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  return (
    <form className="param-form" onSubmit={(event) => { event.preventDefault(); void submit(); }}>
      <input aria-label="Username of the new user" placeholder="username" value={username} onChange={(event) => setUsername(event.target.value)} />
      <input aria-label="Password of the new user" type="password" placeholder="password" value={password} onChange={(event) => setPassword(event.target.value)} />
      <input aria-label="Email of the new user" type="email" placeholder="email (optional)" value={email} onChange={(event) => setEmail(event.target.value)} />
      <button type="submit">Create user</button>
      {problem && <span role="alert" className="problem">{problem}</span>}
    </form>
  );
}
