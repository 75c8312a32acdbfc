import type { ConfigParam, ConfigStore } from '../storage/sql-config.ts';

/** A backstop for a change notification that never arrives (a dropped database connection). */
const CACHE_TTL_MS = 60_000;

/**
 * One app's config (spec 2.9), read once and cached per process: every SDK asks for it at start,
 * and it rarely changes. A change drops the copy here at once and, through the registry's
 * message, in every other process sharing the database.
 */
export class ConfigService {
  private cache: { readonly params: Promise<ReadonlyMap<string, ConfigParam>>; readonly at: number } | null = null;

  constructor(
    private readonly store: ConfigStore,
    private readonly onChange: () => Promise<void>,
  ) {}

  invalidate(): void {
    this.cache = null;
  }

  params(): Promise<ReadonlyMap<string, ConfigParam>> {
    if (this.cache && Date.now() - this.cache.at < CACHE_TTL_MS) return this.cache.params;
    const params = this.store.load();
    const entry = { params, at: Date.now() };
    // A failed read is not remembered: the next request tries again.
    params.catch(() => {
      if (this.cache === entry) this.cache = null;
    });
    this.cache = entry;
    return params;
  }

  /** Writes a change; a read that began before it finishes is not kept. */
  async change(set: ReadonlyMap<string, ConfigParam>, remove: readonly string[]): Promise<void> {
    try {
      await this.store.apply(set, remove);
    } finally {
      this.invalidate();
      await this.onChange();
    }
  }
}
