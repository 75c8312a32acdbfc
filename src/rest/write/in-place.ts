import type { InPlaceChange } from '../../query/in-place.ts';
import type { WritePlan } from '../write-plan.ts';

/** Field names the SQL of an in-place update may carry in its text (sql/params.ts `safeKey`). */
const PLAIN_FIELD = /^[A-Za-z0-9_]+$/;
/** The longest text JSON.stringify writes for a finite double: "-2.2250738585072014e-308". */
const LONGEST_NUMBER = 24;
/** Amounts past this go the path that reads the row, where a sum may overflow as in JavaScript. */
const LARGEST_AMOUNT = 1e300;

/**
 * The plan as an update the database makes in one statement without the row being read first,
 * or null where the row is needed: an ACL change, relations, dotted keys into an Object,
 * AddUnique and Remove (their equality of values is JavaScript's, encoding/ops.ts `valueKey`), or
 * nothing to change.
 * The JSON of set values is JSON.stringify's, the text the path that reads the row would store.
 */
export function inPlaceChange(plan: WritePlan, updatedAt: string, sizeLimit: number): InPlaceChange | null {
  if (plan.permissions !== undefined || plan.nested.size > 0 || plan.ops.size === 0) return null;
  const set = new Map<string, string>();
  const remove: string[] = [];
  const increment = new Map<string, number>();
  const append = new Map<string, readonly string[]>();
  // Bytes the document's JSON may grow by: each field written as `"name":value,` in full.
  let growth = 0;
  for (const [field, op] of plan.ops) {
    if (!PLAIN_FIELD.test(field)) return null;
    const key = Buffer.byteLength(JSON.stringify(field)) + 2;
    switch (op.kind) {
      case 'set': {
        if (op.value === undefined) return null;
        const json = JSON.stringify(op.value);
        set.set(field, json);
        growth += key + Buffer.byteLength(json);
        break;
      }
      case 'delete':
        remove.push(field);
        break;
      case 'increment':
        if (Math.abs(op.amount) >= LARGEST_AMOUNT) return null;
        increment.set(field, op.amount);
        growth += key + LONGEST_NUMBER;
        break;
      case 'add': {
        // Nothing to add still answers the array: left to the other path, as rare as it is.
        if (op.objects.length === 0 || op.objects.some((value) => value === undefined)) return null;
        const values = op.objects.map((value) => JSON.stringify(value));
        append.set(field, values);
        growth += key + Buffer.byteLength(`[${values.join(',')}]`);
        break;
      }
      default:
        return null;
    }
  }
  return { updatedAt, set, remove, increment, append, growth, sizeLimit };
}
