import { randomBytes } from 'node:crypto';
import type { AppStore, StoredObject } from '../storage/port.ts';
import type { SchemaService } from '../schema/service.ts';
import { ensureBuiltinClass } from '../schema/builtin.ts';
import { newObjectId } from '../storage/ids.ts';
import type { WhereNode } from '../query/ast.ts';
import type { InnerScope } from '../query/secure.ts';

/** What a valid session token tells about a request. */
export interface SessionInfo {
  readonly sessionId: string;
  readonly token: string;
  readonly userId: string;
  readonly restricted: boolean;
  readonly installationId: string | null;
  readonly expiresAt: string | null;
}

export interface NewSession {
  readonly userId: string;
  readonly installationId: string | null;
  readonly restricted: boolean;
  readonly action: 'signup' | 'login' | 'create' | 'upgrade';
  /** How the user proved who it is; absent for a session made from another one (POST /1/sessions). */
  readonly authProvider?: string;
  /** Legacy tokens (apps that do not require revocable sessions) have no `r:` prefix. */
  readonly legacy?: boolean;
  /** Seconds until expiry (app setting sessionLength); absent: never. */
  readonly lengthSeconds?: number;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The sessions a restricted session may see: restricted ones (spec 5 rule 5). */
export const RESTRICTED_ONLY: WhereNode = Object.freeze({ kind: 'compare', field: { kind: 'doc', path: ['restricted'] }, op: 'eq', value: true, as: 'boolean' } as const);

/**
 * Spec 5 rule 5 inside other classes' queries: an inner query on `_Session` of a restricted
 * session sees restricted sessions only, or a `$select` with `$regex` on the token could read
 * the user's unrestricted token a character at a time.
 */
export function innerScopeOf(session: SessionInfo | null): InnerScope | undefined {
  if (!session?.restricted) return undefined;
  return (className) => (className === '_Session' ? RESTRICTED_ONLY : null);
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 50_000;

/** decisions.md: `r:` and 128 random bits as 32 lowercase hex characters. */
export function newSessionToken(legacy = false): string {
  const hex = randomBytes(16).toString('hex');
  return legacy ? hex : `r:${hex}`;
}

/**
 * How the sessions of an app are written: through the write pipeline (rest/write/internal.ts),
 * handed in where the services are built, since src/auth sits below src/rest.
 */
export interface SessionWrites {
  insert(session: StoredObject): Promise<void>;
  delete(sessionId: string): Promise<boolean>;
}

/**
 * The sessions of one app (spec 2.7, 3.2): stored as `_Session` objects, looked up by token with a
 * small cache that every change drops in every process (the app registry relays the message).
 */
export class SessionService {
  private readonly cache = new Map<string, { info: SessionInfo | null; at: number }>();
  /**
   * Counts invalidations. A look-up that started before a session was deleted can finish after
   * the cache was dropped for it; it must not put the deleted session back into the cache.
   */
  private generation = 0;

  constructor(
    private readonly store: AppStore,
    private readonly schemas: SchemaService,
    private readonly onChange: () => Promise<void>,
    private readonly writes: SessionWrites,
  ) {}

  invalidate(): void {
    this.generation++;
    this.cache.clear();
  }

  /** The session of a token, or null when it is unknown or expired (an expired one is removed). */
  async resolve(token: string): Promise<SessionInfo | null> {
    const cached = this.cache.get(token);
    if (cached && Date.now() - cached.at < CACHE_TTL_MS && !isExpired(cached.info)) return cached.info;
    const generation = this.generation;
    let info = await this.load(token);
    if (info && isExpired(info)) {
      await this.writes.delete(info.sessionId);
      info = null;
    }
    if (generation !== this.generation) return info;
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(token, { info, at: Date.now() });
    return info;
  }

  private async load(token: string): Promise<SessionInfo | null> {
    if (!(await this.schemas.get('_Session'))) return null;
    const [object] = await this.store.find('_Session', {
      where: { kind: 'compare', field: { kind: 'doc', path: ['sessionToken'] }, op: 'eq', value: token, as: 'text' },
      order: [],
      limit: 1,
      skip: 0,
    });
    return object ? toInfo(object) : null;
  }

  /**
   * Creates a session. One session exists per user and installation (spec 2.7): a login or
   * sign-up from an installation replaces whatever session the user had there, a restricted
   * one paired with it included.
   */
  async create(session: NewSession): Promise<StoredObject> {
    await ensureBuiltinClass(this.schemas, '_Session');
    const now = new Date();
    const data: Record<string, unknown> = {
      ...session.extra,
      sessionToken: newSessionToken(session.legacy),
      user: { __type: 'Pointer', className: '_User', objectId: session.userId },
      restricted: session.restricted,
      createdWith: session.authProvider === undefined ? { action: session.action } : { action: session.action, authProvider: session.authProvider },
      ACL: { [session.userId]: { read: true, write: true } },
    };
    if (session.installationId) data.installationId = session.installationId;
    if (session.lengthSeconds) data.expiresAt = { __type: 'Date', iso: new Date(now.getTime() + session.lengthSeconds * 1000).toISOString() };
    const object: StoredObject = { objectId: newObjectId(), createdAt: now.toISOString(), updatedAt: now.toISOString(), data, rperm: [session.userId], wperm: [session.userId] };
    await this.writes.insert(object);
    if (session.installationId) await this.keepNewestOnInstallation(session.userId, session.installationId);
    return object;
  }

  /** Removes one session; the next request with its token fails, in every process. */
  async remove(sessionId: string): Promise<boolean> {
    const removed = await this.writes.delete(sessionId);
    await this.changed();
    return removed;
  }

  /** Removes every session of a user except `keepSessionId` (a password change, a deleted user). */
  async removeAllOf(userId: string, keepSessionId: string | null = null): Promise<void> {
    if (!(await this.schemas.get('_Session'))) return;
    const sessions = await this.store.find('_Session', {
      where: { kind: 'compare', field: { kind: 'doc', path: ['user', 'objectId'] }, op: 'eq', value: userId, as: 'text' },
      order: [],
      limit: 10_000,
      skip: 0,
    });
    await this.removeSessions(sessions.filter((session) => session.objectId !== keepSessionId));
  }

  /** Removes the user's sessions on an installation except `keepSessionId` (a session just paired there). */
  async removeOnInstallation(userId: string, installationId: string, keepSessionId: string): Promise<void> {
    const sessions = await this.onInstallation(userId, installationId);
    await this.removeSessions(sessions.filter((session) => session.objectId !== keepSessionId));
  }

  /**
   * Of the user's sessions on an installation only the newest stays. Every login runs this after
   * its insert, so of concurrent logins from one installation exactly one keeps its session
   * whatever the interleaving: an older session stored after a newer one's clean-up ran removes itself.
   */
  private async keepNewestOnInstallation(userId: string, installationId: string): Promise<void> {
    const sessions = await this.onInstallation(userId, installationId);
    const newest = sessions.reduce<StoredObject | null>((kept, session) => (kept && isNewer(kept, session) ? kept : session), null);
    await this.removeSessions(sessions.filter((session) => session !== newest));
  }

  private async removeSessions(sessions: readonly StoredObject[]): Promise<void> {
    for (const session of sessions) await this.writes.delete(session.objectId);
    if (sessions.length > 0) await this.changed();
  }

  private onInstallation(userId: string, installationId: string): Promise<StoredObject[]> {
    return this.store.find('_Session', {
      where: {
        kind: 'and',
        nodes: [
          { kind: 'compare', field: { kind: 'doc', path: ['user', 'objectId'] }, op: 'eq', value: userId, as: 'text' },
          { kind: 'compare', field: { kind: 'doc', path: ['installationId'] }, op: 'eq', value: installationId, as: 'text' },
        ],
      },
      order: [],
      limit: 1000,
      skip: 0,
    });
  }

  async changed(): Promise<void> {
    this.invalidate();
    await this.onChange();
  }
}

/** Creation order, with the objectId to break ties between sessions made in one millisecond. */
function isNewer(a: StoredObject, b: StoredObject): boolean {
  return a.createdAt === b.createdAt ? a.objectId > b.objectId : a.createdAt > b.createdAt;
}

function isExpired(info: SessionInfo | null): boolean {
  return info !== null && info.expiresAt !== null && info.expiresAt <= new Date().toISOString();
}

export function toInfo(object: StoredObject): SessionInfo {
  const data = object.data as Record<string, any>;
  return {
    sessionId: object.objectId,
    token: String(data.sessionToken),
    userId: String(data.user?.objectId),
    restricted: data.restricted === true,
    installationId: typeof data.installationId === 'string' ? data.installationId : null,
    expiresAt: typeof data.expiresAt?.iso === 'string' ? data.expiresAt.iso : null,
  };
}
