import { useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ParseObject } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { useObjectIdPages } from '../shared/useObjectIdPages.ts';
import { PrincipalSearch, type Principal } from '../shared/PrincipalSearch.tsx';
import { sessionsQuery } from './sessions-query.ts';

const PAGE = 50;
/** The fields shown; the token itself is never read into the page. */
const KEYS = ['user.username', 'createdWith', 'installationId', 'expiresAt', 'createdAt'];

/** The app's `_Session` objects, all or one user's, in keyset pages; one session or all of a user's revoked. */
export function SessionsPage(props: { applicationId: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const [user, setUser] = useState<Principal | null>(null);
  const [confirmAll, setConfirmAll] = useState(false);
  const { rows: sessions, more, load, notice, setNotice } = useObjectIdPages(
    api ? (after) => api.find('_Session', { where: sessionsQuery(user?.objectId, after), order: 'objectId', limit: PAGE, keys: KEYS, include: ['user'] }) : null,
    PAGE,
    [api, user],
  );

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  const revoked = (text: string) => {
    setNotice(text);
    void load(false);
  };
  const revokeAll = async (who: Principal) => {
    setConfirmAll(false);
    try {
      const count = await revokeSessionsOf(api, who.objectId);
      revoked(`Revoked ${count} ${count === 1 ? 'session' : 'sessions'} of ${who.name}.`);
    } catch (error) {
      setNotice(failureText(error));
    }
  };

  return (
    <section className="sessions-page">
      <h2>Sessions</h2>
      {notice && <p role="status" className="notice">{notice}</p>}
      <div className="row">
        {user ? (
          <>
            <span>Sessions of <strong>{user.name}</strong></span>
            <button type="button" onClick={() => { setUser(null); setConfirmAll(false); }}>Show every user's</button>
            {confirmAll ? (
              <span role="alertdialog" aria-label={`Confirm revoking every session of ${user.name}`} className="confirm">
                Sign {user.name} out everywhere?{' '}
                <button type="button" className="danger" onClick={() => void revokeAll(user)}>Revoke all</button>
                <button type="button" onClick={() => setConfirmAll(false)}>Cancel</button>
              </span>
            ) : (
              <button type="button" className="danger" onClick={() => setConfirmAll(true)}>Revoke every session of {user.name}</button>
            )}
          </>
        ) : (
          <PrincipalSearch api={api} label="Filter sessions by user" onPick={setUser} />
        )}
      </div>
      {sessions === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <table className="config-table" aria-label="Sessions">
          <thead>
            <tr><th>User</th><th>Created with</th><th>Installation</th><th>Expires</th><th>Created</th><th /></tr>
          </thead>
          <tbody>
            {sessions.length === 0 && <tr><td colSpan={6} className="muted">No sessions.</td></tr>}
            {sessions.map((row) => <SessionRow key={row.objectId} api={api} row={row} onRevoked={revoked} />)}
          </tbody>
        </table>
      )}
      {more && <button type="button" onClick={() => void load(true)}>More sessions</button>}
    </section>
  );
}

/** A user's sessions, 1,000 at a time until none is left, deleted through /1/batch; answers how many. */
async function revokeSessionsOf(api: AppApi, userId: string): Promise<number> {
  const where = sessionsQuery(userId, undefined);
  let count = 0;
  for (;;) {
    const page = await api.find('_Session', { where, keys: ['objectId'], limit: 1000 });
    if (page.length === 0) return count;
    const refused = await api.deleteMany('_Session', page.map((row) => row.objectId));
    if (refused.length) throw new Error(`${refused.length} sessions were not deleted: ${refused[0]!.error}`);
    count += page.length;
  }
}

function dateText(value: unknown): string {
  if (typeof value === 'string') return value;
  const iso = (value as { iso?: unknown } | null)?.iso;
  return typeof iso === 'string' ? iso : '';
}

function SessionRow(props: { api: AppApi; row: ParseObject; onRevoked(text: string): void }) {
  const { api, row } = props;
  const user = row.user as { objectId?: string; username?: unknown } | undefined;
  const username = typeof user?.username === 'string' ? user.username : (user?.objectId ?? '(no user)');
  const createdWith = row.createdWith as { action?: unknown; authProvider?: unknown } | undefined;
  const [confirm, setConfirm] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const revoke = async () => {
    setConfirm(false);
    try {
      const refused = await api.deleteMany('_Session', [row.objectId]);
      if (refused.length) return setProblem(refused[0]!.error);
      props.onRevoked(`Revoked the session ${row.objectId} of ${username}.`);
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  return (
    <tr data-session={row.objectId} data-user={username}>
      <td>{username}</td>
      <td>{[createdWith?.action, createdWith?.authProvider].filter((part) => typeof part === 'string').join(' · ')}</td>
      <td>{typeof row.installationId === 'string' ? row.installationId : ''}</td>
      <td>{dateText(row.expiresAt) || <span className="muted">never</span>}</td>
      <td>{typeof row.createdAt === 'string' ? row.createdAt : ''}</td>
      <td>
        {confirm ? (
          <span role="alertdialog" aria-label={`Confirm revoking the session ${row.objectId}`}>
            End this session of {username}?{' '}
            <button type="button" className="danger" onClick={() => void revoke()}>Revoke</button>
            <button type="button" onClick={() => setConfirm(false)}>Cancel</button>
          </span>
        ) : (
          <button type="button" className="danger" aria-label={`Revoke the session ${row.objectId}`} onClick={() => setConfirm(true)}>Revoke</button>
        )}
        {problem && <span role="alert" className="problem">{problem}</span>}
      </td>
    </tr>
  );
}
