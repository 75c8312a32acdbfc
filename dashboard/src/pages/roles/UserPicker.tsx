import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import type { ParseObject } from '../../api/types.ts';
import { usersQuery } from '../users/users-query.ts';
import { useSearch } from '../shared/useSearch.ts';

/** Users offered at once: enough to pick from while typing; more letters narrow the list. */
const SUGGESTIONS = 10;

/**
 * The users whose username or email starts with the text typed (as the users page searches),
 * members of the role left out; picking one adds it. The text can still be sent as a username.
 */
export function UserPicker(props: { api: AppApi; roleName: string; members: readonly ParseObject[]; onPick(user: ParseObject, name: string): Promise<void>; onTyped(text: string): Promise<void> }) {
  const { api } = props;
  const [text, setText] = useState('');
  // Members are asked for too and left out here, so the list still holds SUGGESTIONS others.
  const { matches, problem } = useSearch<ParseObject>(text, (search) =>
    api.find('_User', { where: usersQuery(search), order: 'username', limit: SUGGESTIONS + props.members.length, keys: ['username', 'email'] }),
  );
  const memberIds = new Set(props.members.map((member) => member.objectId));
  const found = text.trim() ? matches.filter((user) => !memberIds.has(user.objectId)).slice(0, SUGGESTIONS) : [];
  const done = () => setText('');
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
