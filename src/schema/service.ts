import { Errors } from '../errors/index.ts';
import type { SchemaStore } from './store.ts';
import { DEFAULT_CLP, describeType, sameType, type ClassSchema, type FieldType } from './types.ts';

export interface EnsureOptions {
  /** May the caller create the class if it does not exist (clientClassCreationEnabled, master key). */
  readonly mayCreateClass: boolean;
}

/**
 * One app's class schemas, cached. The first write of a field fixes its type (code 111 for a
 * later write of another type); the cache is dropped whenever any process changes a schema.
 */
export class SchemaService {
  private cache: Promise<Map<string, ClassSchema>> | null = null;
  /** The cache once it has loaded, for reads that need not wait (see loaded). */
  private ready: Map<string, ClassSchema> | null = null;

  constructor(
    readonly store: SchemaStore,
    private readonly onChange: () => Promise<void>,
  ) {}

  invalidate(): void {
    this.cache = null;
    this.ready = null;
  }

  all(): Promise<Map<string, ClassSchema>> {
    if (!this.cache) {
      const loading = this.store.loadAll().then((list) => {
        const schemas = new Map(list.map((schema) => [schema.className, schema]));
        // A load that an invalidation overtook must not become the cache.
        if (this.cache === loading) this.ready = schemas;
        return schemas;
      });
      loading.catch(() => {
        if (this.cache === loading) this.cache = null;
      });
      this.cache = loading;
    }
    return this.cache;
  }

  async get(className: string): Promise<ClassSchema | null> {
    return (await this.allWith(className)).get(className) ?? null;
  }

  /**
   * The schemas, holding `className` if any process has made it. Another process's new class is
   * missing from this cache until its notice arrives (PostgreSQL NOTIFY, a moment later), and a
   * client that wrote there and reads here must not be told the class is empty: a miss asks the
   * store once (one indexed lookup) and reloads when the class is there.
   */
  async allWith(className: string): Promise<Map<string, ClassSchema>> {
    const schemas = await this.all();
    if (schemas.has(className) || !(await this.store.has(className))) return schemas;
    this.invalidate();
    return this.all();
  }

  /**
   * A class's schema without waiting, when the cache has loaded and holds it; `undefined`
   * otherwise, and the caller awaits `get`. Reads by id use it: each await is a turn of the
   * microtask queue, and most requests find the cache loaded.
   */
  loaded(className: string): ClassSchema | undefined {
    return this.ready?.get(className);
  }

  /** Makes sure the class exists and has these fields with these types. */
  async ensureFields(className: string, types: ReadonlyMap<string, FieldType>, options: EnsureOptions): Promise<ClassSchema> {
    const cached = this.loaded(className) ?? (await this.get(className));
    if (cached && checkFields(cached, types).length === 0) return cached;
    if (!cached && !options.mayCreateClass) {
      throw Errors.operationForbidden(`This key may not create the class ${className}; creating classes from clients is disabled for this app.`);
    }
    const next = await this.change(className, (current) => {
      if (!current && !options.mayCreateClass) throw Errors.operationForbidden(`This key may not create the class ${className}.`);
      const base = current ?? emptySchema(className);
      const missing = checkFields(base, types);
      if (missing.length === 0) return current ?? base;
      return { ...base, fields: { ...base.fields, ...Object.fromEntries(missing) } };
    });
    return next!;
  }

  /** Runs a schema change under the store's lock, then tells every process to reload. */
  async change(
    className: string,
    change: Parameters<SchemaStore['change']>[1],
    ddl?: Parameters<SchemaStore['change']>[2],
  ): Promise<ClassSchema | null> {
    await this.assertNoCaseTwin(className);
    try {
      return await this.store.change(className, change, ddl);
    } finally {
      this.invalidate();
      await this.onChange();
    }
  }

  /**
   * SQLite compares table names without regard to case, so "Foo" and "foo" would share one table
   * and see each other's objects. Refusing such a pair keeps both backends alike.
   */
  private async assertNoCaseTwin(className: string): Promise<void> {
    const all = await this.all();
    if (all.has(className)) return;
    const lower = className.toLowerCase();
    const twin = [...all.keys()].find((name) => name.toLowerCase() === lower);
    if (twin) throw Errors.invalidClassName(`Class ${className} differs only in letter case from the existing class ${twin}.`);
  }

  async drop(className: string): Promise<void> {
    try {
      await this.store.drop(className);
    } finally {
      this.invalidate();
      await this.onChange();
    }
  }
}

export function emptySchema(className: string): ClassSchema {
  return { className, fields: {}, classLevelPermissions: DEFAULT_CLP, indexes: {} };
}

/** The fields of `types` the schema lacks; throws 111 when one has another type already. */
function checkFields(schema: ClassSchema, types: ReadonlyMap<string, FieldType>): [string, FieldType][] {
  const missing: [string, FieldType][] = [];
  for (const [name, type] of types) {
    // Own fields only: "constructor" or "toString" are field names, not inherited methods.
    const existing = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
    if (existing) {
      if (!sameType(existing, type)) {
        throw Errors.incorrectType(`Field ${name} is ${describeType(existing)} in class ${schema.className}; got ${describeType(type)}.`);
      }
      continue;
    }
    if (type.type === 'GeoPoint') {
      // Spec 8: one GeoPoint key per class, counting the fields this same write adds.
      const other = [...Object.entries(schema.fields), ...missing].find(([, field]) => field.type === 'GeoPoint');
      if (other) throw Errors.incorrectType(`Class ${schema.className} already has a GeoPoint field (${other[0]}); a class may hold only one.`);
    }
    missing.push([name, type]);
  }
  return missing;
}
