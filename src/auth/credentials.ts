import { Errors } from '../errors/index.ts';
import type { AppRecord } from '../apps/types.ts';
import type { KeyKind } from '../rest/context.ts';
import { sameSecret } from './keys.ts';

/** What a request presented, from headers, Basic auth or the SDK body form. */
export interface Credentials {
  readonly applicationId?: string;
  readonly keys: Partial<Record<KeyKind, string>>;
  readonly sessionToken?: string;
  readonly installationId?: string;
  readonly revocableSession?: boolean;
}

const KEY_OF: Record<KeyKind, keyof AppRecord['keys']> = {
  master: 'masterKey',
  rest: 'restKey',
  client: 'clientKey',
  javascript: 'javascriptKey',
  windows: 'windowsKey',
};
const STRENGTH: readonly KeyKind[] = ['master', 'rest', 'client', 'javascript', 'windows'];

/**
 * Decides which key a request authenticates with. Every key presented must be right (a wrong
 * master key is not silently downgraded to another key); the strongest one wins.
 */
export function authenticateKey(app: AppRecord, credentials: Credentials): KeyKind {
  let chosen: KeyKind | null = null;
  for (const kind of STRENGTH) {
    const given = credentials.keys[kind];
    if (given === undefined) continue;
    if (!sameSecret(given, app.keys[KEY_OF[kind]])) throw Errors.unauthorized();
    chosen ??= kind;
  }
  if (!chosen) throw Errors.unauthorized('Unauthorized: this request carries no key for the application.');
  return chosen;
}
