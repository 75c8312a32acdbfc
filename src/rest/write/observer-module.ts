import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WriteHooks } from './hooks.ts';

/**
 * `--test-write-observer <module>` (tests and extension authors only, until cloud code loads
 * triggers): the module's default export receives the observer registry once, at start. A module
 * without that export stops the start, rather than run with no observer where one was asked for.
 */
export async function loadWriteObserver(path: string, hooks: WriteHooks): Promise<void> {
  const url = pathToFileURL(isAbsolute(path) ? path : resolve(path)).href;
  const loaded = (await import(url)) as { default?: unknown };
  if (typeof loaded.default !== 'function') throw new Error(`${path}: a write observer module must export a function as its default`);
  await (loaded.default as (hooks: WriteHooks) => unknown)(hooks);
}
