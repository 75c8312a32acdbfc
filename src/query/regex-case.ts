/**
 * What JavaScript's `i` option (without `u`) takes as the same character: ECMA-262's
 * Canonicalize maps each code unit to its upper case, kept when that is one code unit and not
 * a move from non-ASCII to ASCII (so `ſ` is not `s`, nor the Kelvin sign `k`). Two code units
 * match alike when their canonical forms are equal. Both regex translations read this one
 * definition: PostgreSQL's spells out non-ASCII letters as classes, SQLite's every letter.
 */

let groups: Map<string, string[]> | null = null;
let folding: number[] | null = null;

function canonical(char: string): string {
  const upper = char.toUpperCase();
  if (upper.length !== 1) return char;
  if (char.charCodeAt(0) >= 128 && upper.charCodeAt(0) < 128) return char;
  return upper;
}

/** Built once, on first use, over every code unit. */
function build(): Map<string, string[]> {
  if (groups) return groups;
  groups = new Map();
  for (let code = 0; code <= 0xffff; code++) {
    const char = String.fromCharCode(code);
    const key = canonical(char);
    const group = groups.get(key);
    if (group) group.push(char);
    else groups.set(key, [char]);
  }
  folding = [];
  for (let code = 0; code <= 0xffff; code++) if (groups.get(canonical(String.fromCharCode(code)))!.length > 1) folding.push(code);
  return groups;
}

/** Every code unit the `i` option matches where the pattern has `char` (`char` included), in code order. */
export function caseVariantsOfCodeUnit(char: string): readonly string[] {
  return build().get(canonical(char)) ?? [char];
}

/** The code units from `from` to `to` that have another case variant, in order. */
export function foldingCodeUnits(from: number, to: number): number[] {
  build();
  const list = folding!;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (list[middle]! < from) low = middle + 1;
    else high = middle;
  }
  const out: number[] = [];
  for (let i = low; i < list.length && list[i]! <= to; i++) out.push(list[i]!);
  return out;
}
