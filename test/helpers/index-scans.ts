import assert from 'node:assert/strict';
import pg from 'pg';
import type { AppClient } from './client.ts';

/**
 * PostgreSQL only: proves that what `request` makes the server run reads an index of the class,
 * from PostgreSQL's own counters (`pg_stat_user_indexes`) rather than from an EXPLAIN of a
 * statement written by the test. The class is analysed first, so the planner of the server's
 * session (sequential scans allowed) makes a real choice. `index` is a LIKE pattern;
 * `databaseUrl`, the database of a server the test started itself.
 */
export async function expectIndexScanned(app: AppClient, className: string, index: string, request: () => Promise<void>, databaseUrl = process.env.TEST_POSTGRES_URL): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT schemaname FROM pg_tables WHERE tablename = $1', [className]);
    const schema = String(found.rows[0].schemaname);
    await client.query(`ANALYZE "${schema}"."${className}"`);
    const scans = async () => {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query(
        'SELECT coalesce(sum(idx_scan), 0)::int AS n FROM pg_stat_user_indexes WHERE schemaname = $1 AND relname = $2 AND indexrelname LIKE $3',
        [schema, className, index],
      );
      return Number(rows[0].n);
    };
    const before = await scans();
    await request();
    // A server connection reports its statistics when it next runs a statement (or after 10 s
    // idle), so cheap requests are made while waiting.
    let after = before;
    for (let attempt = 0; attempt < 150 && after === before; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await app.get(`/1/classes/${className}/none`);
      after = await scans();
    }
    assert.ok(after > before, `an index like ${index} of ${className} was scanned`);
  } finally {
    await client.end();
  }
}
