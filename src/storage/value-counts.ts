import { sameField, someNode, type CompareOp, type FieldRef, type WhereNode } from '../query/ast.ts';

/**
 * Counts of one where at any bound of one number field, from a single read of how many rows hold
 * each value (docs/api.md "Count"). A page counter over a range whose bound moves (`score >= X`
 * for each X a user picks) would otherwise count tens of thousands of index entries every time;
 * it is the same rows each time, split at another value.
 */

/** The comparisons a count of values can answer: each is a function of the value alone. */
const BOUND_OPS: ReadonlySet<CompareOp> = new Set(['lt', 'lte', 'gt', 'gte', 'eq']);

/** Values read per where at most (2 MB of arrays): more, and counting each bound is cheaper than keeping them. */
export const MAX_VALUES = 131_072;

export interface Bound {
  readonly op: CompareOp;
  readonly value: number;
}

/** A where split into bounds of one number field and the rest (its other conjuncts), which does not depend on them. */
export interface BoundedWhere {
  readonly field: FieldRef;
  readonly bounds: readonly Bound[];
  readonly rest: readonly WhereNode[];
}

/** The same field read the same way: a path of no fixed type is read otherwise than a typed one. */
function sameReading(a: FieldRef, b: FieldRef): boolean {
  return sameField(a, b) && (a.kind === 'doc' && a.untyped) === (b.kind === 'doc' && b.untyped);
}

/**
 * The where as number bounds of one field beside the rest of it, or null. The bounds compare the
 * field read as a number (`expr op value`, as the compiler writes them), so a row counts when the
 * rest matches and its value (never null) passes them all: which rows hold which value answers
 * every bound. `ne` is not a bound: it also matches a row without the field.
 */
export function boundedWhere(where: WhereNode): BoundedWhere | null {
  const nodes = where.kind === 'and' ? where.nodes : [where];
  let field: FieldRef | null = null;
  const bounds: Bound[] = [];
  const rest: WhereNode[] = [];
  for (const node of nodes) {
    if (node.kind === 'compare' && node.as === 'number' && typeof node.value === 'number' && BOUND_OPS.has(node.op) && (field === null || sameReading(field, node.field))) {
      field = node.field;
      bounds.push({ op: node.op, value: node.value });
    } else rest.push(node);
  }
  // A pattern is run under the app's regex slots, which a read in the background would not take.
  if (field === null || rest.some((node) => someNode(node, (inner) => inner.kind === 'regex'))) return null;
  return { field, bounds, rest };
}

/** How many rows hold each value, ascending: counts at any bounds by two binary searches. */
export class ValueCounts {
  private constructor(
    private readonly values: Float64Array,
    /** `below[i]`: the rows holding values[0] … values[i - 1]. */
    private readonly below: Float64Array,
  ) {}

  /** Rows `{v, n}` in ascending order of `v`; null when a value is not a number JavaScript compares as the database does. */
  static of(rows: readonly { v: unknown; n: unknown }[]): ValueCounts | null {
    const values = new Float64Array(rows.length);
    const below = new Float64Array(rows.length + 1);
    for (let i = 0; i < rows.length; i++) {
      const { v, n } = rows[i]!;
      // Past 2^53 a number read into JavaScript may not be the number the database compared.
      if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) >= 2 ** 53) return null;
      if (i > 0 && !(v > values[i - 1]!)) return null;
      values[i] = v;
      below[i + 1] = below[i]! + Number(n);
    }
    return new ValueCounts(values, below);
  }

  get total(): number {
    return this.below[this.values.length]!;
  }

  /** How many values are kept. */
  get size(): number {
    return this.values.length;
  }

  /** The rows whose value passes every bound. */
  count(bounds: readonly Bound[]): number {
    let from = 0;
    let to = this.values.length;
    for (const { op, value } of bounds) {
      if (op === 'gt' || op === 'gte' || op === 'eq') from = Math.max(from, this.firstIndex(value, op === 'gt'));
      if (op === 'lt' || op === 'lte' || op === 'eq') to = Math.min(to, this.firstIndex(value, op === 'lte' || op === 'eq'));
    }
    return to > from ? this.below[to]! - this.below[from]! : 0;
  }

  /** The index of the first value above `value` (`after`) or at least `value`. */
  private firstIndex(value: number, after: boolean): number {
    let low = 0;
    let high = this.values.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const v = this.values[mid]!;
      if (after ? v <= value : v < value) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
