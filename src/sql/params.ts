import type { SqlParam } from '../storage/driver.ts';

/** Collects bound parameters while SQL text is built, so values never enter the text. */
export class Params {
  readonly values: SqlParam[] = [];
  constructor(
    private readonly placeholder: (index: number) => string,
    /** The qualified table of a class in the app being queried (for sub-queries). */
    readonly table: (className: string) => string = () => {
      throw new Error('this statement cannot reference other tables');
    },
  ) {}

  add(value: SqlParam): string {
    this.values.push(value);
    return this.placeholder(this.values.length);
  }
}

/** Quotes an identifier. Callers pass only names already validated by the schema layer. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Field names reach SQL text only through here, after the same check the schema applies. */
export function safeKey(key: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(key)) throw new Error(`unsafe key reached the SQL compiler: ${key}`);
  return key;
}
