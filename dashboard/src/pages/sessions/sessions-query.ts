import type { Where } from '../../api/types.ts';

/** Sessions of one user (or all), after the last objectId seen: keyset pages, never skip. */
export function sessionsQuery(userId: string | undefined, after: string | undefined): Where {
  return {
    ...(userId ? { user: { __type: 'Pointer', className: '_User', objectId: userId } } : {}),
    ...(after ? { objectId: { $gt: after } } : {}),
  };
}
