/**
 * The servers under test. scripts/test.ts starts one Basalt per storage backend and passes their
 * URLs in BASALT_TEST_TARGETS; every HTTP test runs once against each. These tests talk HTTP
 * only: they import nothing from src/.
 */
export interface Target {
  readonly backend: 'sqlite' | 'postgres';
  readonly url: string;
}

export const ADMIN = { email: process.env.TEST_ADMIN_EMAIL ?? 'admin@test.local', password: process.env.TEST_ADMIN_PASSWORD ?? 'admin-password' };

export function targets(): Target[] {
  const raw = process.env.TEST_TARGETS;
  if (!raw) throw new Error('TEST_TARGETS is not set: run the tests with `npm test` (scripts/test.ts starts the servers).');
  return JSON.parse(raw) as Target[];
}
