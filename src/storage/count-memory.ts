/**
 * Large counts of an app, remembered for a short while (docs/api.md "Counts"). The spec lets a
 * count be inaccurate for a class of more than 1,000 objects; a count over half a large class
 * reads tens of thousands of index entries, so the same count asked again and again (a page
 * counter, a dashboard) is answered from here:
 * - only counts above LARGE_COUNT are kept: smaller ones are cheap, and always exact;
 * - every write of this process to the app forgets them all, so a process never answers a count
 *   that misses a write it has acknowledged (the generation is read before the count runs, and
 *   moved after each write ends: a count that may have missed a write is never kept);
 * - writes of other processes sharing the database are seen within `lifetimeMs`.
 */
export const LARGE_COUNT = 1000;

/** Distinct counts kept per app; the least recently used goes first. */
const MAX_ENTRIES = 500;

interface Remembered {
  readonly count: number;
  readonly generation: number;
  readonly at: number;
}

export class CountMemory {
  private readonly entries = new Map<string, Remembered>();
  private current = 0;

  /** `lifetimeMs` 0 keeps nothing. */
  constructor(private readonly lifetimeMs: number) {}

  /** Whether anything is ever kept: with a lifetime of 0 no key need be made. */
  get enabled(): boolean {
    return this.lifetimeMs > 0;
  }

  /** Read before a count runs; handed back to `remember` with its result. */
  get generation(): number {
    return this.current;
  }

  /** A write to the app has ended (or begun inside a transaction that has yet to end). */
  written(): void {
    this.current += 1;
    if (this.entries.size > 0) this.entries.clear();
  }

  recall(key: string): number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation !== this.current || Date.now() - entry.at >= this.lifetimeMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last, so the first key is the one to drop.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.count;
  }

  remember(key: string, generation: number, count: number): void {
    if (this.lifetimeMs <= 0 || count <= LARGE_COUNT || generation !== this.current) return;
    this.entries.delete(key);
    this.entries.set(key, { count, generation, at: Date.now() });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** The key of a compiled count: its text and its values. */
export function countKey(sql: string, params: readonly unknown[]): string {
  return `${sql}\u0000${JSON.stringify(params)}`;
}
