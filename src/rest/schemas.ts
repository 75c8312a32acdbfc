import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { fieldAccess } from '../query/fields.ts';
import { assertClassName, isSystemClass } from '../schema/names.ts';
import { parseClassLevelPermissions, parseFieldDefinition, parseIndexKeys } from '../schema/definition.ts';
import { emptySchema } from '../schema/service.ts';
import { DEFAULT_FIELDS, type ClassSchema, type FieldType } from '../schema/types.ts';
import type { DdlStep } from '../storage/port.ts';
import { ok, type RequestContext, type Result } from './context.ts';

/** Spec 4.11 and decisions.md: schemas are read and changed with the master key only. */
function requireMaster(ctx: RequestContext): void {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('The schema endpoints need the master key.');
}

export function renderSchema(schema: ClassSchema): Record<string, unknown> {
  return { className: schema.className, fields: { ...DEFAULT_FIELDS, ...schema.fields }, classLevelPermissions: schema.classLevelPermissions, indexes: schema.indexes };
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
  return ok(renderSchema(created!), 201);
}

export async function updateSchema(ctx: RequestContext, className: string, body: unknown): Promise<Result> {
  requireMaster(ctx);
  const input = bodyObject(body);
  if (input.className !== undefined && input.className !== className) throw Errors.invalidClassName(`The body names class ${String(input.className)} but the URL names ${className}.`);
  const updated = await ctx.app.schemas.change(
    className,
    (current) => {
      if (!current) throw Errors.invalidClassName(`Class ${className} does not exist.`);
      return applyChanges(current, input);
    },
    (current, next) => [...fieldDropSteps(current!, next), ...indexSteps(current!, next)],
  );
  return ok(renderSchema(updated!));
}

export async function deleteSchema(ctx: RequestContext, className: string): Promise<Result> {
  requireMaster(ctx);
  assertClassName(className);
  const schema = await ctx.app.schemas.get(className);
  if (!schema) return ok({});
  const count = await ctx.app.schemas.store.countObjects(className);
  if (count > 0) throw Errors.classNotEmpty(`Class ${className} is not empty: it holds ${count} object${count === 1 ? '' : 's'}.`);
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
  if (fromUrl && fromBody !== undefined && fromBody !== fromUrl) throw Errors.invalidClassName(`The body names class ${String(fromBody)} but the URL names ${fromUrl}.`);
  const className = fromUrl ?? (fromBody as string | undefined);
  if (!className) throw Errors.missingRequiredField('A className is required.');
  if (className.startsWith('_') && !isSystemClass(className)) throw Errors.invalidClassName(`Class names starting with "_" are reserved: ${className}.`);
  assertClassName(className);
  return className;
}

/** Applies fields / classLevelPermissions / indexes of a POST or PUT body to a schema. */
function applyChanges(schema: ClassSchema, input: Record<string, unknown>): ClassSchema {
  const fields: Record<string, FieldType> = { ...schema.fields };
  if (input.fields !== undefined) {
    if (!isPlainObject(input.fields)) throw Errors.invalidJson('fields must be an object.');
    for (const [name, definition] of Object.entries(input.fields)) {
      if (isPlainObject(definition) && definition.__op === 'Delete') {
        if (!fields[name]) throw Errors.classNotEmpty(`Field ${name} does not exist, cannot delete.`);
        delete fields[name];
        continue;
      }
      if (fields[name] || name in DEFAULT_FIELDS) throw Errors.classNotEmpty(`Field ${name} exists, cannot update.`);
      const type = parseFieldDefinition(name, definition);
      if (type.type === 'GeoPoint' && Object.values(fields).some((field) => field.type === 'GeoPoint')) {
        throw Errors.incorrectType(`Class ${schema.className} already has a GeoPoint field; a class may hold only one.`);
      }
      fields[name] = type;
    }
  }
  const classLevelPermissions = input.classLevelPermissions === undefined ? schema.classLevelPermissions : { ...schema.classLevelPermissions, ...parseClassLevelPermissions(input.classLevelPermissions) };
  const indexes: Record<string, Record<string, 1 | -1>> = { ...schema.indexes };
  if (input.indexes !== undefined) {
    if (!isPlainObject(input.indexes)) throw Errors.invalidQuery('indexes must be an object.');
    for (const [name, keys] of Object.entries(input.indexes)) {
      if (isPlainObject(keys) && keys.__op === 'Delete') {
        if (!indexes[name]) throw Errors.invalidQuery(`Index ${name} does not exist, cannot delete.`);
        delete indexes[name];
        continue;
      }
      if (indexes[name]) throw Errors.invalidQuery(`Index ${name} exists, cannot update.`);
      const parsed = parseIndexKeys(name, keys);
      for (const field of Object.keys(parsed)) {
        if (!fields[field] && !(field in DEFAULT_FIELDS)) throw Errors.invalidQuery(`Field ${field} does not exist, cannot add index ${name}.`);
        if (fields[field]?.type === 'Relation') throw Errors.invalidQuery(`Relation field ${field} cannot be indexed.`);
      }
      indexes[name] = parsed;
    }
  }
  // Indexes on a deleted field go with it.
  for (const [name, keys] of Object.entries(indexes)) {
    if (Object.keys(keys).some((field) => !fields[field] && !(field in DEFAULT_FIELDS))) delete indexes[name];
  }
  return { className: schema.className, fields, classLevelPermissions, indexes };
}

function fieldDropSteps(current: ClassSchema, next: ClassSchema): DdlStep[] {
  return Object.entries(current.fields)
    .filter(([name]) => !next.fields[name])
    .map(([name, type]) => ({ kind: 'dropField', field: name, relation: type.type === 'Relation' }));
}

/** Real database indexes, on exactly the expressions the query compiler reads (query/fields.ts). */
function indexSteps(current: ClassSchema, next: ClassSchema): DdlStep[] {
  const steps: DdlStep[] = [];
  for (const name of Object.keys(current.indexes)) if (!next.indexes[name]) steps.push({ kind: 'dropIndex', name: `idx_${name}` });
  for (const [name, keys] of Object.entries(next.indexes)) {
    if (current.indexes[name]) continue;
    steps.push({
      kind: 'createIndex',
      name: `idx_${name}`,
      keys: Object.entries(keys).map(([field, direction]) => ({ ...fieldAccess(field, next.fields[field]), descending: direction === -1 })),
    });
  }
  return steps;
}
