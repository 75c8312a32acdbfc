import type { ValueCounts } from './value-counts.ts';

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

/** Value counts (value-counts.ts) kept per app, and their values in all (16 bytes each): the least recently read go first. */
const MAX_VALUE_COUNTS = 8;
const MAX_VALUES_KEPT = 262_144;

/** Large counts of one where at other bounds, in one generation and lifetime, before its values are read. */
const SIGHTINGS_TO_READ = 2;

interface Remembered {
  readonly count: number;
  readonly generation: number;
  readonly at: number;
}

interface Sighting {
  readonly times: number;
  readonly generation: number;
  readonly at: number;
}

interface RememberedValues {
  /** null: the where has too many values, or values JavaScript cannot compare; count each bound. */
  readonly counts: ValueCounts | null;
  readonly generation: number;
  readonly at: number;
}

export class CountMemory {
  private readonly entries = new Map<string, Remembered>();
  private readonly values = new Map<string, RememberedValues>();
  private valuesHeld = 0;
  private readonly sightings = new Map<string, Sighting>();
  /** Wheres whose values are being read: one read at a time each. */
  private readonly reading = new Set<string>();
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
    if (this.values.size > 0) {
      this.values.clear();
      this.valuesHeld = 0;
    }
    if (this.sightings.size > 0) this.sightings.clear();
  }

  private fresh(entry: { readonly generation: number; readonly at: number }): boolean {
    return entry.generation === this.current && Date.now() - entry.at < this.lifetimeMs;
  }

  recall(key: string): number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (!this.fresh(entry)) {
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

  /** How many wheres' value counts are kept (a count of kept entries: the memory's size, for tests and diagnostics). */
  get valuesKept(): number {
    return this.values.size;
  }

  /**
   * The value counts kept for a where's rest (`key`: its values statement), undefined when none
   * is, null when the where was found to have too many values to keep.
   */
  recallValues(key: string): ValueCounts | null | undefined {
    const entry = this.values.get(key);
    if (!entry) return undefined;
    if (!this.fresh(entry)) {
      this.forgetValues(key);
      return undefined;
    }
    return entry.counts;
  }

  /**
   * A count above LARGE_COUNT of a where with number bounds has run (read `generation` before it
   * did): true when such counts of the same rest keep coming, so that its values are worth reading.
   * The caller then reads them and hands them to `rememberValues` (null if the read failed).
   */
  sighted(key: string, generation: number): boolean {
    if (this.lifetimeMs <= 0 || generation !== this.current || this.reading.has(key) || this.recallValues(key) !== undefined) return false;
    const seen = this.sightings.get(key);
    const times = seen && this.fresh(seen) ? seen.times + 1 : 1;
    this.sightings.delete(key);
    if (times >= SIGHTINGS_TO_READ) {
      this.reading.add(key);
      return true;
    }
    this.sightings.set(key, { times, generation, at: seen && this.fresh(seen) ? seen.at : Date.now() });
    if (this.sightings.size > MAX_ENTRIES) this.sightings.delete(this.sightings.keys().next().value!);
    return false;
  }

  rememberValues(key: string, generation: number, counts: ValueCounts | null): void {
    this.reading.delete(key);
    if (this.lifetimeMs <= 0 || generation !== this.current) return;
    // Too few rows to be inaccurate about (a count of them is cheap): counted every time.
    if (counts !== null && counts.total <= LARGE_COUNT) return;
    this.forgetValues(key);
    this.values.set(key, { counts, generation, at: Date.now() });
    this.valuesHeld += counts?.size ?? 0;
    while (this.values.size > MAX_VALUE_COUNTS || this.valuesHeld > MAX_VALUES_KEPT) this.forgetValues(this.values.keys().next().value!);
  }

  private forgetValues(key: string): void {
    const entry = this.values.get(key);
    if (!entry) return;
    this.values.delete(key);
    this.valuesHeld -= entry.counts?.size ?? 0;
  }
}

/** The key of a compiled count: its text and its values. */
export function countKey(sql: string, params: readonly unknown[]): string {
  return `${sql}\u0000${JSON.stringify(params)}`;
}
