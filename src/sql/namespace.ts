import type { SqlDriver } from './driver.ts';
import { ident, objectName } from './params.ts';

/**
 * Where one app's tables live: a PostgreSQL schema (qualified names) or a SQLite file of its own
 * (bare names). No query ever names two apps' tables, so apps can be spread over a cluster.
 */
export class AppNamespace {
  constructor(readonly driver: SqlDriver, readonly schema: string | null) {}

  table(name: string): string {
    return this.schema ? `${ident(this.schema)}.${ident(name)}` : ident(name);
  }

  /** PostgreSQL truncates identifiers past 63 bytes; long names keep a hash so they stay distinct. */
  indexName(className: string, suffix: string): string {
    return objectName(className, suffix);
  }
}
