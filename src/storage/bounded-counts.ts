import type { WhereNode } from '../query/ast.ts';
import type { CompiledSql } from '../sql/compiler.ts';
import type { Row } from '../sql/driver.ts';
import { LARGE_COUNT, countKey, type CountMemory } from './count-memory.ts';
import { boundedWhere, MAX_VALUES, ValueCounts, type Bound, type BoundedWhere } from './value-counts.ts';

/** A count whose where bounds one number field: its rest's values statement, and its bounds. */
export interface BoundedCount {
  readonly key: string;
  readonly statement: CompiledSql;
  readonly bounds: readonly Bound[];
}

/**
 * Large counts of wheres that bound a number field, answered from how many rows of the rest hold
 * each value (value-counts.ts), once counts of the same rest at other bounds keep coming: the
 * page counter of a range whose bound the user moves. The values are read once per lifetime of
 * remembered counts (count-memory.ts), in the background, and follow its rules: every write of
 * the process forgets them, and a count of 1,000 or less is always counted.
 */
export class BoundedCounts {
  private readonly compiled = new WeakMap<WhereNode, { readonly className: string; readonly bounded: BoundedCount | null }>();

  constructor(
    private readonly counts: CountMemory,
    private readonly compile: (className: string, bounded: BoundedWhere, limit: number) => CompiledSql,
    private readonly read: (statement: CompiledSql) => Promise<Row[]>,
  ) {}

  /** The where as a bounded count, or null when it bounds no number field. */
  of(className: string, where: WhereNode): BoundedCount | null {
    let compiled = this.compiled.get(where);
    if (compiled?.className !== className) {
      const bounded = boundedWhere(where);
      let count: BoundedCount | null = null;
      if (bounded) {
        // One more than kept: a where that returns it has too many values.
        const statement = this.compile(className, bounded, MAX_VALUES + 1);
        count = { key: countKey(statement.sql, statement.params), statement, bounds: bounded.bounds };
      }
      compiled = { className, bounded: count };
      this.compiled.set(where, compiled);
    }
    return compiled.bounded;
  }

  /** The count from values read before, when there are some and it is large; else undefined. */
  recall(bounded: BoundedCount): number | undefined {
    const values = this.counts.recallValues(bounded.key);
    if (!values) return undefined;
    const count = values.count(bounded.bounds);
    return count > LARGE_COUNT ? count : undefined;
  }

  /** A count of it ran (`generation` read before): read its rest's values when such counts keep coming. */
  counted(bounded: BoundedCount, generation: number, count: number): void {
    if (count <= LARGE_COUNT || !this.counts.sighted(bounded.key, generation)) return;
    void this.readValues(bounded, generation);
  }

  private async readValues(bounded: BoundedCount, generation: number): Promise<void> {
    let values: ValueCounts | null = null;
    try {
      const rows = await this.read(bounded.statement);
      if (rows.length <= MAX_VALUES) {
        rows.sort((a, b) => Number(a.v) - Number(b.v));
        values = ValueCounts.of(rows as { v: unknown; n: unknown }[]);
      }
    } catch {
      // Counted bound by bound until the counts' lifetime ends: the counts themselves report a failure.
    }
    this.counts.rememberValues(bounded.key, generation, values);
  }
}
