import { createRequire } from 'node:module';
import type PgModule from 'pg';

const require = createRequire(import.meta.url);

/**
 * The pg driver, loaded with `Response` hidden. When it loads, pg asks whether it runs in a
 * Cloudflare Worker by making a `Response`; on Node 20 (which has no `navigator`, pg's first
 * test) the global `Response` is a lazy getter that loads Node's whole fetch implementation, which
 * Basalt never uses: about 6 MB of an idle PostgreSQL server's memory here. The load is
 * synchronous, so no other code runs while the global is hidden.
 */
function loadPg(): typeof PgModule {
  const response = Object.getOwnPropertyDescriptor(globalThis, 'Response');
  if (!response?.configurable) return require('pg') as typeof PgModule;
  Object.defineProperty(globalThis, 'Response', { value: undefined, configurable: true, writable: true, enumerable: false });
  try {
    return require('pg') as typeof PgModule;
  } finally {
    Object.defineProperty(globalThis, 'Response', response);
  }
}

export const pg = loadPg();
