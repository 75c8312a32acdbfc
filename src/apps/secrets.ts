import { isPlainObject } from '../encoding/values.ts';
import { MASK, maskPushCredentials, restoreMaskedSecrets } from '../push/networks/credentials.ts';

/**
 * The app settings that are written and never read back: `/1/apps` shows each as MASK, and an
 * update that sends MASK back keeps the stored value. The push credentials, whose secrets sit in
 * lists, have their own walk (push/networks/credentials.ts); every other secret is at a fixed path.
 */
export const SECRET_SETTING_PATHS: readonly (readonly string[])[] = [
  ['email', 'auth', 'pass'],
  ['auth', 'facebook', 'appSecret'],
  ['auth', 'twitter', 'consumerSecret'],
];

export { MASK };

/** The object holding the last step of `path` in `root`, or null when a step on the way is missing. */
function holderOf(root: unknown, path: readonly string[]): Record<string, unknown> | null {
  let node = root;
  for (const step of path.slice(0, -1)) {
    if (!isPlainObject(node)) return null;
    node = node[step];
  }
  return isPlainObject(node) ? node : null;
}

/** A copy of `value` in which the objects along `path` are copies too, so they can be rewritten. */
function copyAlong(value: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  const copy = { ...value };
  let node = copy;
  for (const step of path.slice(0, -1)) {
    if (!isPlainObject(node[step])) break;
    node[step] = { ...(node[step] as Record<string, unknown>) };
    node = node[step] as Record<string, unknown>;
  }
  return copy;
}

/** The settings as `/1/apps` shows them: every stored secret replaced by MASK. */
export function maskAppSecrets(settings: Record<string, unknown>): Record<string, unknown> {
  let shown = settings.push !== undefined ? { ...settings, push: maskPushCredentials(settings.push) } : settings;
  for (const path of SECRET_SETTING_PATHS) {
    const holder = holderOf(shown, path);
    const name = path[path.length - 1]!;
    if (holder === null || holder[name] === undefined) continue;
    shown = copyAlong(shown, path);
    holderOf(shown, path)![name] = MASK;
  }
  return shown;
}

/**
 * An update body in which each MASK stands again for the secret stored at its place. A MASK with
 * nothing stored behind it stays, for `maskedSecretIn` to refuse.
 */
export function restoreAppSecrets(body: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  let restored = body.push !== undefined ? { ...body, push: restoreMaskedSecrets(body.push, stored.push) } : body;
  for (const path of SECRET_SETTING_PATHS) {
    const name = path[path.length - 1]!;
    if (holderOf(restored, path)?.[name] !== MASK) continue;
    const kept = holderOf(stored, path)?.[name];
    if (typeof kept !== 'string') continue;
    restored = copyAlong(restored, path);
    holderOf(restored, path)![name] = kept;
  }
  return restored;
}

/** The dotted path of a secret of setting `key` that is still MASK (nothing was stored there), or null. */
export function maskedSecretIn(key: string, value: unknown): string | null {
  for (const path of SECRET_SETTING_PATHS) {
    if (path[0] !== key) continue;
    if (holderOf({ [key]: value }, path)?.[path[path.length - 1]!] === MASK) return path.join('.');
  }
  return null;
}
