import { useEffect, useRef, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import { literal, usersQuery } from '../users/users-query.ts';

/** A user or a role found by the search, as a class-level permission or a filter names it. */
export interface Principal {
  readonly kind: 'user' | 'role';
  readonly objectId: string;
  /** The username, or the role's name. */
  readonly name: string;
}

/** Offered at once: enough to pick from while typing; more letters narrow the list. */
const SUGGESTIONS = 8;
/** Typing pauses this long before the server is asked, so a fast typist sends one query, not one per key. */
const PAUSE_MS = 150;

/**
 * Search-as-you-type over `_User` (username or email starting with the text) and, when asked,
 * `_Role` (name starting with it); picking one hands it to the caller. Never more than one
 * short page per class is read, so it serves apps of any size.
 */
export function PrincipalSearch(props: { api: AppApi; label: string; roles?: boolean; onPick(principal: Principal): void }) {
  const { api, roles } = props;
  const [text, setText] = useState('');
  const [found, setFound] = useState<readonly Principal[]>([]);
  // The text the shown matches answer, so "no match" is said only once the server has answered.
  const [answered, setAnswered] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // Only the answer to the latest text is shown: an older, slower answer is dropped.
  const latest = useRef(0);

  useEffect(() => {
    const search = text.trim();
    const asked = ++latest.current;
    if (!search) {
      setFound([]);
      return;
    }
    const timer = setTimeout(() => {
      const users = api.find('_User', { where: usersQuery(search), order: 'username', limit: SUGGESTIONS, keys: ['username'] });
      const roleList = roles ? api.find('_Role', { where: { name: { $regex: `^${literal(search)}` } }, order: 'name', limit: SUGGESTIONS, keys: ['name'] }) : Promise.resolve([]);
      Promise.all([users, roleList]).then(
        ([userRows, roleRows]) => {
          if (asked !== latest.current) return;
          setFound([
            ...userRows.map((user) => ({ kind: 'user' as const, objectId: user.objectId, name: String(user.username ?? user.objectId) })),
            ...roleRows.map((role) => ({ kind: 'role' as const, objectId: role.objectId, name: String(role.name) })),
          ]);
          setAnswered(search);
          setProblem(null);
        },
        (error: unknown) => asked === latest.current && setProblem(failureText(error)),
      );
    }, PAUSE_MS);
    return () => clearTimeout(timer);
  }, [api, roles, text]);

  const pick = (principal: Principal) => {
    setText('');
    setFound([]);
    props.onPick(principal);
  };
  return (
    <div className="principal-search">
      <input aria-label={props.label} placeholder={roles ? 'username or role name starts with…' : 'username or email starts with…'} autoComplete="off" value={text} onChange={(event) => setText(event.target.value)} />
      {problem && <span role="alert" className="problem">{problem}</span>}
      {text.trim() !== '' && (
        <ul className="suggestions" aria-label={`Matches of ${props.label}`}>
          {found.length === 0 && <li className="muted">{answered === text.trim() ? 'No match.' : 'Searching…'}</li>}
          {found.map((principal) => (
            <li key={`${principal.kind}:${principal.objectId}`}>
              <button type="button" className="link" aria-label={`Pick the ${principal.kind} ${principal.name}`} onClick={() => pick(principal)}>
                {principal.kind === 'role' ? `role ${principal.name}` : principal.name}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
