import type { FindQuery, OrderKey, WhereNode } from '../query/ast.ts';
import type { ParsedQuery } from '../query/parse.ts';
import type { ClassSchema } from '../schema/types.ts';

/**
 * Query texts that differ only in the numbers they compare (`{"score": {"$gte": X}}` for each X
 * a user picks) parse to the same tree with other values: the parse of one such text is kept per
 * shape (the text with its numbers taken out), and the next text of the shape gets a copy of it
 * with its own numbers put in, instead of a parse. A parse costs more than the page it plans
 * once the page's statement is prepared.
 *
 * Only numbers that the parse puts, as they are, into a number comparison are put in this way:
 * the shape is parsed once more with numbers nobody sends (sentinels), each sentinel must land in
 * exactly one `compare` node's `value`, and the tree of the real numbers must be that tree with
 * them put in. A number the parse checks or turns into something else (a GeoPoint, a distance,
 * an array element) fails that test, and the shape's texts are parsed each time as before.
 */

/** A text as the parts between its numbers, and those numbers. */
export interface NumberShape {
  /** The text with every number outside a string replaced by U+0001 (which no JSON text holds raw). */
  readonly key: string;
  readonly parts: readonly string[];
  readonly numbers: readonly number[];
}

const SLOT = '\u0001';
const MAX_NUMBERS = 16;
const MAX_SHAPES = 256;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The numbers of a JSON text outside its strings, or null when it has none (or too many). */
export function numberShape(text: string): NumberShape | null {
  if (text.includes(SLOT)) return null;
  const parts: string[] = [];
  const numbers: number[] = [];
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, past escaped characters.
      i += 1;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i += 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (!match) return null;
      if (numbers.length === MAX_NUMBERS) return null;
      parts.push(text.slice(from, i));
      numbers.push(Number(match[0]));
      i += match[0].length;
      from = i;
    } else i += 1;
  }
  if (numbers.length === 0) return null;
  parts.push(text.slice(from));
  return { key: parts.join(SLOT), parts, numbers };
}

/** The shape's text with other numbers. */
export function withNumbers(shape: NumberShape, numbers: readonly number[]): string {
  let text = shape.parts[0]!;
  for (let i = 0; i < numbers.length; i++) text += String(numbers[i]) + shape.parts[i + 1]!;
  return text;
}

/** Steps from a where to one of its `compare` nodes: `nodes` indexes and `node` (a not's child). */
type Path = readonly (number | 'node')[];

export interface KnownShape {
  /** null: the shape's texts are parsed each time. `parsed` holds `sentinels` where texts hold their numbers. */
  readonly template: { readonly parsed: ParsedQuery; readonly slots: readonly Path[]; readonly sentinels: readonly number[] } | null;
  readonly order: readonly OrderKey[];
  /** An index serves the shape's queries (rest/scan-log.ts): it does for every value. */
  served?: boolean;
  /**
   * The template's secured statements per caller (rest/query-plans.ts `securedKey`), and whether
   * the store found them to be those of the caller's first text of the shape with its numbers
   * put in (`sameStatements`): then the caller's later texts are read through them.
   */
  readonly callers: Map<string, ShapeStatements>;
}

export interface ShapeStatements {
  readonly find: FindQuery;
  readonly same: boolean;
}

const MAX_CALLERS = 64;

export function keepCaller(shape: KnownShape, caller: string, statements: ShapeStatements): void {
  if (shape.callers.size >= MAX_CALLERS) shape.callers.clear();
  shape.callers.set(caller, statements);
}

/** Sentinels: negative, fractional, far from what apps send, each its own. */
const sentinel = (i: number) => -(987_654_321.125 + i * 1_000_003);

/** Where each of `values` sits as a `compare` node's value in `where`, or null when one is elsewhere or twice. */
function slotsOf(where: WhereNode, values: readonly number[]): Path[] | null {
  const found = new Map<number, Path[]>();
  const wanted = new Set(values);
  let stray = false;
  const visit = (node: WhereNode, path: Path): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        node.nodes.forEach((child, i) => visit(child, [...path, i]));
        return;
      case 'not':
        visit(node.node, [...path, 'node']);
        return;
      case 'compare':
        if (typeof node.value === 'number' && wanted.has(node.value)) {
          if (node.as !== 'number') stray = true;
          found.set(node.value, [...(found.get(node.value) ?? []), path]);
        }
        return;
      default:
        // A sentinel anywhere else (an array element, a point, an inner query) is not put in here.
        if (holdsAny(node, wanted)) stray = true;
    }
  };
  visit(where, []);
  if (stray) return null;
  const slots: Path[] = [];
  for (const value of values) {
    const paths = found.get(value);
    if (paths?.length !== 1) return null;
    slots.push(paths[0]!);
  }
  return slots;
}

function holdsAny(value: unknown, wanted: ReadonlySet<number>): boolean {
  if (typeof value === 'number') return wanted.has(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some((item) => holdsAny(item, wanted));
}

function put(node: WhereNode, path: Path, at: number, value: number): WhereNode {
  if (at === path.length) return node.kind === 'compare' ? { ...node, value } : node;
  const step = path[at]!;
  if (step === 'node') return node.kind === 'not' ? { kind: 'not', node: put(node.node, path, at + 1, value) } : node;
  if (node.kind !== 'and' && node.kind !== 'or') return node;
  const nodes = node.nodes.slice();
  nodes[step] = put(nodes[step]!, path, at + 1, value);
  return { kind: node.kind, nodes };
}

/** The template's tree with `numbers` in its slots. */
export function putNumbers(template: NonNullable<KnownShape['template']>, numbers: readonly number[]): ParsedQuery {
  let where = template.parsed.where;
  template.slots.forEach((path, i) => (where = put(where, path, 0, numbers[i]!)));
  return { ...template.parsed, where };
}

function sameTree(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return typeof a === 'number' && typeof b === 'number' && Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.hasOwn(b, key) && sameTree((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * What a shape is, learnt from the parse of one of its texts (`parsed`, of `shape.numbers`) and
 * `parse`, which parses a text of the shape as the request's text was.
 */
export function learnShape(shape: NumberShape, parsed: ParsedQuery, order: readonly OrderKey[], parse: (text: string) => ParsedQuery): KnownShape {
  const sentinels = shape.numbers.map((_, i) => sentinel(i));
  let template: KnownShape['template'] = null;
  try {
    const probe = parse(withNumbers(shape, sentinels));
    const slots = probe.nearest === null && parsed.nearest === null ? slotsOf(probe.where, sentinels) : null;
    if (slots) {
      const candidate = { parsed: probe, slots, sentinels };
      if (sameTree(putNumbers(candidate, shape.numbers), parsed)) template = candidate;
    }
  } catch {
    // The sentinels are refused where the request's numbers were not: parsed each time.
  }
  return { template, order, callers: new Map() };
}

const bySchemas = new WeakMap<ReadonlyMap<string, ClassSchema>, Map<string, KnownShape>>();

/** `key`: the class, the shape's key and the order text, as rest/find.ts makes it. */
export function knownShape(schemas: ReadonlyMap<string, ClassSchema>, key: string): KnownShape | undefined {
  return bySchemas.get(schemas)?.get(key);
}

export function keepShape(schemas: ReadonlyMap<string, ClassSchema>, key: string, known: KnownShape): void {
  let shapes = bySchemas.get(schemas);
  if (!shapes) bySchemas.set(schemas, (shapes = new Map()));
  if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value!);
  shapes.set(key, known);
}
