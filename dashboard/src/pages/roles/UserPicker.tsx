import { useEffect, useRef, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ParseObject } from '../../api/types.ts';
import { usersQuery } from '../users/users-query.ts';

/** Users offered at once: enough to pick from while typing; more letters narrow the list. */
const SUGGESTIONS = 10;
/** Typing pauses this long before the server is asked, so a fast typist sends one query, not one per key. */
const PAUSE_MS = 150;

/**
 * The users whose username or email starts with the text typed (as the users page searches),
 * members of the role left out; picking one adds it. The text can still be sent as a username.
 */
export function UserPicker(props: { api: AppApi; roleName: string; members: readonly ParseObject[]; onPick(user: ParseObject, name: string): Promise<void>; onTyped(text: string): Promise<void> }) {
  const { api } = props;
  const [text, setText] = useState('');
  const [found, setFound] = useState<readonly ParseObject[]>([]);
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
      api.find('_User', { where: usersQuery(search), order: 'username', limit: SUGGESTIONS + props.members.length, keys: ['username', 'email'] }).then(
        (users) => {
          if (asked !== latest.current) return;
          const memberIds = new Set(props.members.map((member) => member.objectId));
          setFound(users.filter((user) => !memberIds.has(user.objectId)).slice(0, SUGGESTIONS));
          setProblem(null);
        },
        (error: unknown) => asked === latest.current && setProblem(failureText(error)),
      );
    }, PAUSE_MS);
    return () => clearTimeout(timer);
  }, [api, text, props.members]);

  const done = () => {
    setText('');
    setFound([]);
  };
  return (
    <div className="user-picker">
      <form onSubmit={(event) => { event.preventDefault(); if (text.trim()) void props.onTyped(text.trim()).then(done); }}>
        <input aria-label={`Username to add to ${props.roleName}`} placeholder="username or email starts with…" autoComplete="off" value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit">Add user</button>
      </form>
      {problem && <p role="alert" className="problem">{problem}</p>}
      {found.length > 0 && (
        <ul className="suggestions" aria-label={`Users to add to ${props.roleName}`}>
          {found.map((user) => {
            const name = String(user.username ?? user.objectId);
            return (
              <li key={user.objectId}>
                <button type="button" className="link" aria-label={`Add the user ${name} to ${props.roleName}`} onClick={() => void props.onPick(user, name).then(done)}>
                  {name}
                </button>
                {typeof user.email === 'string' && <span className="muted"> {user.email}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
