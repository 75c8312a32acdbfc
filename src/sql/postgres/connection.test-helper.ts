import { after, before } from 'node:test';
import pg from 'pg';

/**
 * For unit tests that compare with PostgreSQL itself: one connection to the test server for the
 * enclosing suite, opened before its tests (then `prepare` runs on it) and closed after them.
 * The returned function gives the open connection.
 */
/** The PostgreSQL server `npm test` gives the tests (scripts/test.ts). */
export function testPostgresUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error('TEST_POSTGRES_URL is not set: run the tests with `npm test`.');
  return url;
}

export function postgresForSuite(prepare?: (client: pg.Client) => Promise<void>): () => pg.Client {
  let client: pg.Client | undefined;
  before(async () => {
    client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    await prepare?.(client);
  });
  after(async () => {
    await client?.end();
  });
  return () => {
    if (!client) throw new Error('the PostgreSQL connection is opened before the suite\'s tests');
    return client;
  };
}
