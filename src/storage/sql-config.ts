import type { AppNamespace } from '../sql/namespace.ts';

/** One config parameter (spec 2.9): its value as stored JSON, and whether only the master key sees it. */
export interface ConfigParam {
  readonly value: unknown;
  readonly masterKeyOnly: boolean;
}

/** The app's config parameters, in its `_Config` table. */
export interface ConfigStore {
  load(): Promise<Map<string, ConfigParam>>;
  /** Sets and removes parameters in one transaction: readers see all of the change or none. */
  apply(set: ReadonlyMap<string, ConfigParam>, remove: readonly string[]): Promise<void>;
}

export class SqlConfigStore implements ConfigStore {
  constructor(private readonly ns: AppNamespace) {}

  private get table(): string {
    return this.ns.table('_Config');
  }

  async load(): Promise<Map<string, ConfigParam>> {
    const rows = await this.ns.driver.all(`SELECT "name", "value", "masterKeyOnly" FROM ${this.table} ORDER BY "name"`);
    return new Map(rows.map((row) => [String(row.name), { value: JSON.parse(String(row.value)), masterKeyOnly: Number(row.masterKeyOnly) === 1 }]));
  }

  async apply(set: ReadonlyMap<string, ConfigParam>, remove: readonly string[]): Promise<void> {
    const d = this.ns.driver.dialect;
    const [p1, p2, p3] = [1, 2, 3].map((i) => d.placeholder(i));
    await this.ns.driver.transaction(async (tx) => {
      for (const name of remove) await tx.run(`DELETE FROM ${this.table} WHERE "name" = ${p1}`, [name]);
      for (const [name, param] of set) {
        await tx.run(
          `INSERT INTO ${this.table} ("name", "value", "masterKeyOnly") VALUES (${p1}, ${p2}, ${p3}) ON CONFLICT ("name") DO UPDATE SET "value" = excluded."value", "masterKeyOnly" = excluded."masterKeyOnly"`,
          [name, JSON.stringify(param.value), param.masterKeyOnly ? 1 : 0],
        );
      }
    });
  }
}
