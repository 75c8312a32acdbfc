import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

// Run in a process of its own: pg is loaded once per process, and this one may have loaded it.
const PROBE = `
const original = Object.getOwnPropertyDescriptor(globalThis, 'Response');
let reads = 0;
const watched = { configurable: true, enumerable: false, get() { reads++; return original.get ? original.get.call(globalThis) : original.value; } };
Object.defineProperty(globalThis, 'Response', watched);
const { pg } = await import(${JSON.stringify(new URL('./pg-module.ts', import.meta.url).href)});
const after = Object.getOwnPropertyDescriptor(globalThis, 'Response');
console.log(JSON.stringify({ reads, restored: after.get === watched.get, pool: typeof pg.Pool, client: typeof pg.Client, response: typeof Response }));
`;

describe('the pg module', () => {
  it('loads without reading the global Response, which it leaves as it was', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), { reads: 0, restored: true, pool: 'function', client: 'function', response: 'function' });
  });
});
