import { Errors } from '../errors/index.ts';
import { sameSecret } from './keys.ts';

/** The kinds of key a request may present; the master key is the strongest. */
export type KeyKind = 'master' | 'rest' | 'client' | 'javascript' | 'windows';

/** What a request presented, from headers, Basic auth or the SDK body form. */
export interface Credentials {
  readonly applicationId?: string;
  readonly keys: Partial<Record<KeyKind, string>>;
  readonly sessionToken?: string;
  readonly installationId?: string;
  readonly revocableSession?: boolean;
}

const KEY_OF = {
  master: 'masterKey',
  rest: 'restKey',
  client: 'clientKey',
  javascript: 'javascriptKey',
  windows: 'windowsKey',
} as const satisfies Record<KeyKind, string>;

/**
 * What a key check reads of an app record (apps/types.ts): its keys. The record itself keys the
 * cache of proven keys below.
 */
interface KeyedApp {
  readonly keys: Readonly<Record<(typeof KEY_OF)[KeyKind], string>>;
}
const STRENGTH: readonly KeyKind[] = ['master', 'rest', 'client', 'javascript', 'windows'];

/**
 * Keys already proven right, per app record (a changed record is a new object, so a rotated key
 * is never served from here). A Set answers by the hash of the presented string, so unlike `===`
 * against the secret its time does not tell how much of a wrong key was right; only correct keys
 * enter, so it holds at most one entry per key kind.
 */
const verified = new WeakMap<KeyedApp, Map<KeyKind, Set<string>>>();

function isVerified(app: KeyedApp, kind: KeyKind, given: string): boolean {
  return verified.get(app)?.get(kind)?.has(given) === true;
}

function remember(app: KeyedApp, kind: KeyKind, given: string): void {
  let kinds = verified.get(app);
  if (!kinds) verified.set(app, (kinds = new Map()));
  kinds.set(kind, new Set([given]));
}

/**
 * Decides which key a request authenticates with. Every key presented must be right (a wrong
 * master key is not silently downgraded to another key); the strongest one wins.
 */
export function authenticateKey(app: KeyedApp, credentials: Credentials): KeyKind {
  let chosen: KeyKind | null = null;
  for (const kind of STRENGTH) {
    const given = credentials.keys[kind];
    if (given === undefined) continue;
    if (!isVerified(app, kind, given)) {
      if (!sameSecret(given, app.keys[KEY_OF[kind]])) throw Errors.unauthorized();
      remember(app, kind, given);
    }
    chosen ??= kind;
  }
  if (!chosen) throw Errors.unauthorized('Unauthorized: this request carries no key for the application.');
  return chosen;
}
