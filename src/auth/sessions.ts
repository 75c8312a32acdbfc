import { randomBytes } from 'node:crypto';
import type { AppStore, StoredObject } from '../storage/port.ts';
import type { SchemaService } from '../schema/service.ts';
import { ensureBuiltinClass } from '../schema/builtin.ts';
import { newObjectId } from '../apps/ids.ts';

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
  readonly authProvider: string;
  /** Legacy tokens (apps that do not require revocable sessions) have no `r:` prefix. */
  readonly legacy?: boolean;
  /** Seconds until expiry (app setting sessionLength); absent: never. */
  readonly lengthSeconds?: number;
  readonly extra?: Readonly<Record<string, unknown>>;
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 50_000;

/** decisions.md: `r:` and 128 random bits as 32 lowercase hex characters. */
export function newSessionToken(legacy = false): string {
  const hex = randomBytes(16).toString('hex');
  return legacy ? hex : `r:${hex}`;
}

/**
 * The sessions of one app (spec 2.7, 3.2): stored as `_Session` objects, looked up by token with a
 * small cache that every change drops in every process (the app registry relays the message).
 */
export class SessionService {
  private readonly cache = new Map<string, { info: SessionInfo | null; at: number }>();

  constructor(
    private readonly store: AppStore,
    private readonly schemas: SchemaService,
    private readonly onChange: () => Promise<void>,
  ) {}

  invalidate(): void {
    this.cache.clear();
  }

  /** The session of a token, or null when it is unknown or expired (an expired one is removed). */
  async resolve(token: string): Promise<SessionInfo | null> {
    const cached = this.cache.get(token);
    if (cached && Date.now() - cached.at < CACHE_TTL_MS && !isExpired(cached.info)) return cached.info;
    let info = await this.load(token);
    if (info && isExpired(info)) {
      await this.store.delete('_Session', info.sessionId, null);
      info = null;
    }
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
   * Creates a session; a new unrestricted session of a user on an installation replaces the one
   * that user had there (spec 3.2).
   */
  async create(session: NewSession): Promise<StoredObject> {
    await ensureBuiltinClass(this.schemas, '_Session');
    if (session.installationId && !session.restricted) await this.deleteWhere(session.userId, session.installationId);
    const now = new Date();
    const data: Record<string, unknown> = {
      ...session.extra,
      sessionToken: newSessionToken(session.legacy),
      user: { __type: 'Pointer', className: '_User', objectId: session.userId },
      restricted: session.restricted,
      createdWith: { action: session.action, authProvider: session.authProvider },
      ACL: { [session.userId]: { read: true, write: true } },
    };
    if (session.installationId) data.installationId = session.installationId;
    if (session.lengthSeconds) data.expiresAt = { __type: 'Date', iso: new Date(now.getTime() + session.lengthSeconds * 1000).toISOString() };
    const object: StoredObject = { objectId: newObjectId(), createdAt: now.toISOString(), updatedAt: now.toISOString(), data, rperm: [session.userId], wperm: [session.userId] };
    await this.store.insert('_Session', { object, relations: [] });
    return object;
  }

  /** Removes one session, or every session of a user except `keep`. */
  async remove(sessionId: string): Promise<boolean> {
    const removed = await this.store.delete('_Session', sessionId, null);
    await this.changed();
    return removed;
  }

  async removeAllOf(userId: string, keepSessionId: string | null = null): Promise<void> {
    if (!(await this.schemas.get('_Session'))) return;
    const sessions = await this.store.find('_Session', {
      where: { kind: 'compare', field: { kind: 'doc', path: ['user', 'objectId'] }, op: 'eq', value: userId, as: 'text' },
      order: [],
      limit: 10_000,
      skip: 0,
    });
    for (const session of sessions) if (session.objectId !== keepSessionId) await this.store.delete('_Session', session.objectId, null);
    await this.changed();
  }

  private async deleteWhere(userId: string, installationId: string): Promise<void> {
    const sessions = await this.store.find('_Session', {
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
    for (const session of sessions) if (session.data.restricted !== true) await this.store.delete('_Session', session.objectId, null);
    if (sessions.length > 0) await this.changed();
  }

  async changed(): Promise<void> {
    this.invalidate();
    await this.onChange();
  }
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
