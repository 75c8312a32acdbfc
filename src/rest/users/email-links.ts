import { createHash, randomBytes } from 'node:crypto';
import type { AppHandle } from '../../apps/registry.ts';
import { tokenLifetimeOf } from '../../apps/settings.ts';
import type { TokenKind, TokenRecord } from '../../storage/sql-tokens.ts';
import type { StoredObject } from '../../storage/port.ts';
import type { UserOptions, Log } from '../context.ts';
import { USER } from './common.ts';

/** What sending an emailed link needs: the app, a logger and the server's link root. */
export interface MailScope {
  readonly app: AppHandle;
  readonly log: Log;
  readonly userOptions: UserOptions;
}

const PAGE: Record<TokenKind, string> = { verify: 'verify_email', reset: 'reset_password' };

/** 256 random bits, URL-safe; only their SHA-256 is stored (see the `_Token` migration). */
export async function issueLink(scope: MailScope, kind: TokenKind, userId: string, email: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const lifetime = tokenLifetimeOf(scope.app.record.settings, kind);
  await scope.app.tokens.put({ hash: hashToken(token), kind, userId, email, expiresAt: Date.now() + lifetime * 1000 });
  return `${scope.userOptions.linkBaseUrl}/apps/${encodeURIComponent(scope.app.record.applicationId)}/${PAGE[kind]}?token=${encodeURIComponent(token)}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A token as it arrives from a link: anything that is not one of ours is simply not found. */
export function tokenHashOf(token: unknown): string | null {
  return typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token) ? hashToken(token) : null;
}

/** Uses a token once. The link is worthless when its user is gone or now has another address. */
export async function redeem(app: AppHandle, kind: TokenKind, token: unknown): Promise<{ record: TokenRecord; user: StoredObject } | null> {
  const hash = tokenHashOf(token);
  const record = hash ? await app.tokens.take(hash, kind, Date.now()) : null;
  return record ? withUser(app, record) : null;
}

/** Reads a token without using it up. */
export async function inspect(app: AppHandle, kind: TokenKind, token: unknown): Promise<{ record: TokenRecord; user: StoredObject } | null> {
  const hash = tokenHashOf(token);
  const record = hash ? await app.tokens.peek(hash, kind, Date.now()) : null;
  return record ? withUser(app, record) : null;
}

async function withUser(app: AppHandle, record: TokenRecord): Promise<{ record: TokenRecord; user: StoredObject } | null> {
  if (!(await app.schemas.get(USER))) return null;
  const user = await app.store.get(USER, record.userId, null);
  return user && user.data.email === record.email ? { record, user } : null;
}

/** The user with this (normalized) address, if any. */
export async function findByEmail(app: AppHandle, email: string): Promise<StoredObject | null> {
  if (!(await app.schemas.get(USER))) return null;
  const [user] = await app.store.find(USER, {
    where: { kind: 'compare', field: { kind: 'doc', path: ['email'] }, op: 'eq', value: email, as: 'text' },
    order: [],
    limit: 1,
    skip: 0,
  });
  return user ?? null;
}
