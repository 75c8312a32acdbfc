import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where cloud code comes from: operator options only (the remote API can never set a path). */
export interface CodeLocations {
  /** `--cloud`: the default app's entry file. */
  readonly defaultEntry: string | null;
  /** `--cloud-dir`: `<dir>/<applicationId>/main.js` for every other app. */
  readonly dir: string | null;
}

const ENTRY_NAMES = ['main.js', 'main.mjs', 'main.cjs'];

/**
 * The real path of an app's entry file, or null when it has none. The default app's is the
 * `--cloud` file; any app may have one under `--cloud-dir` (the default app too, without --cloud).
 * An application id is a path segment here: one that could leave the folder names no code.
 */
export function entryOf(locations: CodeLocations, applicationId: string, isDefault: boolean): string | null {
  if (isDefault && locations.defaultEntry) return realpathSync(resolve(locations.defaultEntry));
  if (!locations.dir || !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(applicationId) || applicationId.startsWith('..')) return null;
  for (const name of ENTRY_NAMES) {
    const path = join(resolve(locations.dir), applicationId, name);
    if (existsSync(path)) return realpathSync(path);
  }
  return null;
}
