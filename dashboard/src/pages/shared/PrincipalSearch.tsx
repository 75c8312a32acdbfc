import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { literal, usersQuery } from '../users/users-query.ts';
import { useSearch } from './useSearch.ts';

/** A user or a role found by the search, as a class-level permission or a filter names it. */
export interface Principal {
  readonly kind: 'user' | 'role';
  readonly objectId: string;
  /** The username, or the role's name. */
  readonly name: string;
}

/** Offered at once: enough to pick from while typing; more letters narrow the list. */
const SUGGESTIONS = 8;

/**
 * Search-as-you-type over `_User` (username or email starting with the text) and, when asked,
 * `_Role` (name starting with it); picking one hands it to the caller. Never more than one
 * short page per class is read, so it serves apps of any size.
 */
export function PrincipalSearch(props: { api: AppApi; label: string; roles?: boolean; onPick(principal: Principal): void }) {
  const { api, roles } = props;
  const [text, setText] = useState('');
  const { matches, answered, problem } = useSearch<Principal>(text, async (search) => {
    const users = api.find('_User', { where: usersQuery(search), order: 'username', limit: SUGGESTIONS, keys: ['username'] });
    const roleList = roles ? api.find('_Role', { where: { name: { $regex: `^${literal(search)}` } }, order: 'name', limit: SUGGESTIONS, keys: ['name'] }) : Promise.resolve([]);
    const [userRows, roleRows] = await Promise.all([users, roleList]);
    return [
      ...userRows.map((user) => ({ kind: 'user' as const, objectId: user.objectId, name: String(user.username ?? user.objectId) })),
      ...roleRows.map((role) => ({ kind: 'role' as const, objectId: role.objectId, name: String(role.name) })),
    ];
  });
  const found = text.trim() ? matches : [];

  const pick = (principal: Principal) => {
    setText('');
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
