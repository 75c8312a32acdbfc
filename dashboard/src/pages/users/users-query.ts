import type { Where } from '../../api/types.ts';

/** Literal text inside a `$regex`: every character that means something to a regex is escaped. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Users whose username or email starts with the text, after the last objectId seen (keyset pages, never skip). */
export function usersQuery(search: string, after?: string): Where {
  const parts: Where[] = [];
  if (search) parts.push({ $or: [{ username: { $regex: `^${literal(search)}` } }, { email: { $regex: `^${literal(search)}` } }] });
  if (after) parts.push({ objectId: { $gt: after } });
  return parts.length === 0 ? {} : parts.length === 1 ? parts[0]! : { $and: parts };
}
