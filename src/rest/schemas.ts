import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { fieldAccess } from '../query/fields.ts';
import { assertClassName, isSystemClass } from '../schema/names.ts';
import { assertNotDefaultField, fieldOf, isDefaultField, parseClassLevelPermissions, parseFieldDefinition, parseIndexKeys } from '../schema/definition.ts';
import { emptySchema } from '../schema/service.ts';
import { DEFAULT_FIELDS, type ClassSchema, type FieldType, type IndexSpec } from '../schema/types.ts';
import { textIndexField, textIndexOn } from '../schema/indexes.ts';
import type { DdlStep, IndexKey } from '../storage/port.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { quote } from '../errors/quote.ts';

/** Spec 4.11 and decisions.md: schemas are read and changed with the master key only. */
function requireMaster(ctx: RequestContext): void {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('The schema endpoints need the master key.');
}

/**
 * Parse Server lists `password` among the user class's fields, and Parse Dashboard offers a
 * password cell for a new user only when it is there. No object stores it (the hash is the
 * hidden `_hashed_password`), so it is shown, never kept in the stored schema.
 */
const USER_SHOWN_FIELDS: Readonly<Record<string, FieldType>> = { password: { type: 'String' } };

export function renderSchema(schema: ClassSchema): Record<string, unknown> {
  const shown = schema.className === '_User' ? USER_SHOWN_FIELDS : null;
  const rendered: Record<string, unknown> = { className: schema.className, fields: { ...DEFAULT_FIELDS, ...shown, ...schema.fields }, classLevelPermissions: schema.classLevelPermissions, indexes: schema.indexes };
  // Beside `indexes`, which keeps Parse's shape (name → keys) for the SDKs and the dashboard.
  if (schema.autoIndexes && Object.keys(schema.autoIndexes).length) rendered.autoIndexes = schema.autoIndexes;
  return rendered;
}

export async function listSchemas(ctx: RequestContext): Promise<Result> {
  requireMaster(ctx);
  const all = await ctx.app.schemas.all();
  return ok({ results: [...all.values()].map(renderSchema) });
}

export async function getSchema(ctx: RequestContext, className: string): Promise<Result> {
  requireMaster(ctx);
  const schema = await ctx.app.schemas.get(className);
  if (!schema) throw Errors.invalidClassName(`Class ${className} does not exist.`);
  return ok(renderSchema(schema));
}

export async function createSchema(ctx: RequestContext, urlClassName: string | undefined, body: unknown): Promise<Result> {
  requireMaster(ctx);
  const input = bodyObject(body);
  const className = resolveClassName(urlClassName, input.className);
  const created = await ctx.app.schemas.change(
    className,
    (current) => {
      if (current) throw Errors.invalidClassName(`Class ${className} already exists.`);
      return applyChanges(emptySchema(className), input);
    },
    (current, next) => indexSteps(current ?? emptySchema(className), next),
  );
  return ok(renderSchema(created!), 201, { Location: `${ctx.publicUrl}/1/schemas/${encodeURIComponent(className)}` });
}

export async function updateSchema(ctx: RequestContext, className: string, body: unknown): Promise<Result> {
  requireMaster(ctx);
  const input = bodyObject(body);
  if (input.className !== undefined && input.className !== className) throw Errors.invalidClassName(`The body names class ${quote(input.className)} but the URL names ${className}.`);
  const updated = await ctx.app.schemas.change(
    className,
    (current) => {
      if (!current) throw Errors.invalidClassName(`Class ${className} does not exist.`);
      return applyChanges(current, input);
    },
    (current, next) => {
      // Indexes go before the data of deleted fields, which they would otherwise follow row by row.
      const indexChanges = indexSteps(current!, next);
      const isDrop = (step: DdlStep) => step.kind === 'dropIndex' || step.kind === 'dropTextIndex';
      return [...indexChanges.filter(isDrop), ...fieldDropSteps(current!, next), ...indexChanges.filter((step) => !isDrop(step))];
    },
  );
  return ok(renderSchema(updated!));
}

export async function deleteSchema(ctx: RequestContext, className: string): Promise<Result> {
  requireMaster(ctx);
  assertClassName(className);
  // The store decides under its lock, not from this process's cache: it refuses (255) a class that
  // still holds objects, and like Parse answers {} for a class that does not exist.
  await ctx.app.schemas.drop(className);
  return ok({});
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  return body;
}

function resolveClassName(fromUrl: string | undefined, fromBody: unknown): string {
  if (fromBody !== undefined && typeof fromBody !== 'string') throw Errors.invalidClassName('className must be a string.');
  if (fromUrl && fromBody !== undefined && fromBody !== fromUrl) throw Errors.invalidClassName(`The body names class ${quote(fromBody)} but the URL names ${fromUrl}.`);
  const className = fromUrl ?? (fromBody as string | undefined);
  if (!className) throw Errors.missingRequiredField('A className is required.');
  if (className.startsWith('_') && !isSystemClass(className)) throw Errors.invalidClassName(`Class names starting with "_" are reserved: ${className}.`);
  assertClassName(className);
  return className;
}

/** Applies fields / classLevelPermissions / indexes of a POST or PUT body to a schema. */
function applyChanges(schema: ClassSchema, input: Record<string, unknown>): ClassSchema {
  const fields = changeFields(schema, input.fields);
  // Permissions are checked against the fields the class ends up with (pointer and protected fields).
  const classLevelPermissions = input.classLevelPermissions === undefined ? schema.classLevelPermissions : parseClassLevelPermissions(input.classLevelPermissions, fields);
  const indexes = changeIndexes(schema.indexes, input.indexes, fields);
  const auto = Object.entries(schema.autoIndexes ?? {}).filter(([name]) => Object.hasOwn(indexes, name));
  return { className: schema.className, fields, classLevelPermissions, indexes, ...(auto.length ? { autoIndexes: Object.fromEntries(auto) } : {}) };
}

/** Parse's rules: adding a field that exists or deleting one that does not is 255; default fields are 136. */
function changeFields(schema: ClassSchema, input: unknown): Record<string, FieldType> {
  const fields: Record<string, FieldType> = { ...schema.fields };
  if (input === undefined) return fields;
  if (!isPlainObject(input)) throw Errors.invalidJson('fields must be an object.');
  for (const [name, definition] of Object.entries(input)) {
    if (isPlainObject(definition) && definition.__op === 'Delete') {
      assertNotDefaultField(name);
      if (!fieldOf(fields, name)) throw Errors.classNotEmpty(`Field ${name.slice(0, 80)} does not exist, cannot delete.`);
      delete fields[name];
      continue;
    }
    if (fieldOf(fields, name)) throw Errors.classNotEmpty(`Field ${name} exists, cannot update.`);
    const type = parseFieldDefinition(name, definition);
    const geoPoint = Object.entries(fields).find(([, field]) => field.type === 'GeoPoint');
    if (type.type === 'GeoPoint' && geoPoint) {
      throw Errors.incorrectType(`Class ${schema.className} already has a GeoPoint field (${geoPoint[0]}); a class may hold only one.`);
    }
    fields[name] = type;
  }
  return fields;
}

function changeIndexes(current: IndexSpec, input: unknown, fields: Readonly<Record<string, FieldType>>): Record<string, Record<string, 1 | -1 | 'text'>> {
  const indexes: Record<string, Record<string, 1 | -1 | 'text'>> = { ...current };
  const hasField = (name: string) => fieldOf(fields, name) !== undefined || isDefaultField(name);
  if (input !== undefined) {
    if (!isPlainObject(input)) throw Errors.invalidQuery('indexes must be an object.');
    for (const [name, keys] of Object.entries(input)) {
      if (isPlainObject(keys) && keys.__op === 'Delete') {
        if (!Object.hasOwn(indexes, name)) throw Errors.invalidQuery(`Index ${name.slice(0, 80)} does not exist, cannot delete.`);
        delete indexes[name];
        continue;
      }
      const parsed = parseIndexKeys(name, keys);
      // SQLite compares index names without regard to case, so such a pair would be one index there.
      const twin = Object.keys(indexes).find((other) => other.toLowerCase() === name.toLowerCase());
      if (twin) throw Errors.invalidQuery(twin === name ? `Index ${name} exists, cannot update.` : `Index ${name} differs only in letter case from the existing index ${twin}.`);
      for (const field of Object.keys(parsed)) {
        if (!hasField(field)) throw Errors.invalidQuery(`Field ${field} does not exist, cannot add index ${name}.`);
        if (fieldOf(fields, field)?.type === 'Relation') throw Errors.invalidQuery(`Relation field ${field} cannot be indexed: its values live in the join table.`);
      }
      const textField = textIndexField(parsed);
      if (textField !== null) {
        // `$text` reads other types too (a Date's ISO text, a Pointer's id), but words are worth indexing only in strings.
        if (fieldOf(fields, textField)?.type !== 'String') throw Errors.invalidQuery(`Text index ${name}: ${textField} is not a String field of the class.`);
        const other = textIndexOn(indexes, textField);
        if (other) throw Errors.invalidQuery(`Text index ${name}: field ${textField} already has the text index ${other}.`);
      }
      indexes[name] = parsed;
    }
  }
  // Indexes on a deleted field go with it.
  for (const [name, keys] of Object.entries(indexes)) {
    if (!Object.keys(keys).every(hasField)) delete indexes[name];
  }
  return indexes;
}

function fieldDropSteps(current: ClassSchema, next: ClassSchema): DdlStep[] {
  return Object.entries(current.fields)
    .filter(([name]) => !fieldOf(next.fields, name))
    .map(([name, type]) => ({ kind: 'dropField', field: name, relation: type.type === 'Relation' }));
}

/**
 * What an index on a field covers: what queries read. A GeoPoint becomes three columns, its
 * latitude cell, longitude and latitude: the box the compiler puts before every distance, box and
 * polygon test seeks each cell and reads the box's longitudes there (sql/geo.ts). Direction means
 * nothing for a point, so its columns ascend.
 */
export function indexKeys(field: string, type: FieldType | undefined, descending: boolean): IndexKey[] {
  if (type?.type !== 'GeoPoint') return [{ ...fieldAccess(field, type), descending }];
  const part = (name: string) => ({ field: { kind: 'doc', path: [field, name] }, as: 'number', descending: false }) as const;
  return [{ ...part('latitude'), latitudeCell: true }, part('longitude'), part('latitude')];
}

/** Real database indexes, on exactly the expressions the query compiler reads (query/fields.ts). */
function indexSteps(current: ClassSchema, next: ClassSchema): DdlStep[] {
  const steps: DdlStep[] = [];
  for (const [name, keys] of Object.entries(current.indexes)) {
    if (!Object.hasOwn(next.indexes, name)) steps.push(textIndexField(keys) === null ? { kind: 'dropIndex', name } : { kind: 'dropTextIndex', name });
  }
  for (const [name, keys] of Object.entries(next.indexes)) {
    if (Object.hasOwn(current.indexes, name)) continue;
    const textField = textIndexField(keys);
    if (textField !== null) {
      steps.push({ kind: 'createTextIndex', name, field: fieldAccess(textField, fieldOf(next.fields, textField)).field });
      continue;
    }
    steps.push({
      kind: 'createIndex',
      name,
      keys: Object.entries(keys).flatMap(([field, direction]) => indexKeys(field, fieldOf(next.fields, field), direction === -1)),
    });
  }
  return steps;
}
