/**
 * The script of a thread beside the main one (reader-worker.ts, checkpoint-worker.ts). Built
 * (dist/), the thread runs the compiled .js beside this file; from source, the .ts.
 */
export function workerScript(name: string): URL {
  return new URL(import.meta.url.endsWith('.ts') ? `./${name}.ts` : `./${name}.js`, import.meta.url);
}

/**
 * What a Worker is started with for `script`. Run from source (tests, `node --import tsx`), a
 * thread does not inherit tsx's loader on Node 20: it registers it before importing the script.
 */
export function workerSource(script: URL): { readonly source: URL | string; readonly eval: boolean } {
  if (!script.pathname.endsWith('.ts')) return { source: script, eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  return { source: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script.href)}); });`, eval: true };
}
