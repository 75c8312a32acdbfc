import { describe } from 'node:test';
import { targets, type Target } from './targets.ts';

/** Runs a suite once per storage backend, so SQLite and PostgreSQL pass the same tests. */
export function eachBackend(name: string, suite: (target: Target) => void): void {
  for (const target of targets()) {
    describe(`${name} [${target.backend}]`, () => suite(target));
  }
}
