import { createHash, randomBytes } from 'node:crypto';
import type { AppHandle } from '../../apps/registry.ts';
import { tokenLifetimeOf } from '../../apps/settings.ts';
import type { TokenKind, TokenRecord } from '../../storage/sql-tokens.ts';
import type { StoredObject, WriteStep } from '../../storage/port.ts';
import { mailStep } from '../../mail/deliver.ts';
import type { MailMessage } from '../../mail/port.ts';
import type { UserOptions, Log } from '../context.ts';
import { USER } from './common.ts';

/** What sending an emailed link needs: the app, a logger and the server's link root. */
export interface MailScope {
  readonly app: AppHandle;
  readonly log: Log;
  readonly userOptions: UserOptions;
}

const PAGE: Record<TokenKind, string> = { verify: 'verify_email', reset: 'reset_password' };

/**
 * A new link: 256 random bits, URL-safe, of which only the SHA-256 is stored (see the `_Token`
 * migration). The token row is a step of the caller's unit of work, written with the mail that
 * carries the link (mail/deliver.ts) and, where there is one, the write that caused both.
 */
export function prepareLink(scope: MailScope, kind: TokenKind, userId: string, email: string): { readonly link: string; readonly step: WriteStep } {
  const token = randomBytes(32).toString('base64url');
  const lifetime = tokenLifetimeOf(scope.app.record.settings, kind);
  const step = scope.app.tokens.putStep({ hash: hashToken(token), kind, userId, email, expiresAt: Date.now() + lifetime * 1000 });
  return { link: `${scope.userOptions.linkBaseUrl}/apps/${encodeURIComponent(scope.app.record.applicationId)}/${PAGE[kind]}?token=${encodeURIComponent(token)}`, step };
}

/** The token and the mail that carries its link, as steps of one unit of work. */
export function linkMailSteps(scope: MailScope, kind: TokenKind, userId: string, email: string, mail: (link: string) => MailMessage): WriteStep[] {
  const { link, step } = prepareLink(scope, kind, userId, email);
  return [step, mailStep(scope.app, scope.log, mail(link))];
}

/** Sends a link on its own (a reset, a resent verification): the token and the mail in one transaction. */
export async function sendLink(scope: MailScope, kind: TokenKind, userId: string, email: string, mail: (link: string) => MailMessage): Promise<void> {
  await scope.app.tokens.sweepExpired(Date.now());
  await scope.app.store.runSteps(linkMailSteps(scope, kind, userId, email, mail));
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
