import type { SqlExecutor } from './driver.ts';

/**
 * Versioned migrations. System migrations create the account and app tables once per database;
 * app migrations create the tables every app namespace has. Each database keeps its own list in
 * its folder (sqlite/migrations.ts, postgres/migrations.ts), numbered alike. Each runs once, in
 * order, inside a transaction that holds a lock, so several processes starting at once apply it
 * exactly once. Append new versions; never edit an applied one.
 */
export interface Migration {
  readonly version: number;
  /** `table` names a table of the namespace being migrated (qualified on PostgreSQL). */
  readonly statements: (table: (name: string) => string) => string[];
  /** A step that reads what the namespace holds, run after the statements, in their transaction. */
  readonly run?: (tx: SqlExecutor, table: (name: string) => string) => Promise<void>;
}

/** Applies the migrations not yet recorded, in version order; the caller holds the lock. */
export async function applyMigrations(
  tx: SqlExecutor,
  migrations: readonly Migration[],
  table: (name: string) => string,
  versionTable: string,
): Promise<void> {
  const d = tx.dialect;
  await tx.run(`CREATE TABLE IF NOT EXISTS ${versionTable} ("version" INTEGER PRIMARY KEY, "appliedAt" TEXT NOT NULL)`);
  // Every missing version is applied, not only those above the highest: a database that got a
  // later version first (two changes landing in either order) still gets the earlier one.
  const rows = await tx.all(`SELECT "version" FROM ${versionTable}`);
  const applied = new Set(rows.map((row) => Number(row.version)));
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements(table)) await tx.run(statement);
    if (migration.run) await migration.run(tx, table);
    await tx.run(`INSERT INTO ${versionTable} ("version", "appliedAt") VALUES (${d.placeholder(1)}, ${d.placeholder(2)})`, [migration.version, new Date().toISOString()]);
  }
}
