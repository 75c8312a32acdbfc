import { DEFAULT_CLP, type ClassSchema, type FieldType } from './types.ts';
import type { DdlStep } from './store.ts';
import { fieldAccess } from '../query/fields.ts';
import type { SchemaService } from './service.ts';

interface BuiltinClass {
  readonly fields: Readonly<Record<string, FieldType>>;
  /** Fields whose values are unique in the class: real unique indexes, so concurrent writes cannot both win. */
  readonly unique: readonly string[];
  /** Fields looked up on hot paths. */
  readonly indexed: readonly string[];
  /** Groups of fields unique together (objects missing any of them are never in conflict). */
  readonly uniqueTogether?: readonly (readonly string[])[];
}

/** Spec 2.4, 2.5, 2.7, 2.8 and decisions.md "Push": the fields the built-in classes always have. */
const BUILTIN: Readonly<Record<string, BuiltinClass>> = {
  _User: {
    fields: { username: { type: 'String' }, email: { type: 'String' }, emailVerified: { type: 'Boolean' }, authData: { type: 'Object' } },
    unique: ['username', 'email'],
    indexed: [],
  },
  _Session: {
    fields: {
      sessionToken: { type: 'String' },
      user: { type: 'Pointer', targetClass: '_User' },
      installationId: { type: 'String' },
      restricted: { type: 'Boolean' },
      createdWith: { type: 'Object' },
      expiresAt: { type: 'Date' },
    },
    unique: ['sessionToken'],
    indexed: ['user'],
  },
  _Role: {
    fields: { name: { type: 'String' }, users: { type: 'Relation', targetClass: '_User' }, roles: { type: 'Relation', targetClass: '_Role' } },
    unique: ['name'],
    indexed: [],
  },
  // Spec 2.8. A new installation is matched to an existing one by installationId and by
  // deviceToken (rest/installations.ts), so both are indexed; only installationId is unique,
  // since one device token may briefly sit on several installations of a device.
  _Installation: {
    fields: {
      installationId: { type: 'String' },
      deviceToken: { type: 'String' },
      deviceType: { type: 'String' },
      pushType: { type: 'String' },
      GCMSenderId: { type: 'String' },
      channels: { type: 'Array' },
      channelUris: { type: 'Array' },
      timeZone: { type: 'String' },
      localeIdentifier: { type: 'String' },
      badge: { type: 'Number' },
      appName: { type: 'String' },
      appVersion: { type: 'String' },
      appIdentifier: { type: 'String' },
      parseVersion: { type: 'String' },
    },
    unique: ['installationId'],
    indexed: ['deviceToken'],
  },
  // Webhook definitions (src/webhooks): a function hook has functionName and url, a trigger hook
  // className, triggerName and url. Parse Server's class and field names, so an export reads the
  // same. The unique indexes make a duplicate impossible even when two processes create one at once.
  _Hooks: {
    fields: { functionName: { type: 'String' }, className: { type: 'String' }, triggerName: { type: 'String' }, url: { type: 'String' } },
    unique: ['functionName'],
    indexed: [],
    uniqueTogether: [['className', 'triggerName']],
  },
  // decisions.md "Push", in Parse Server's field shapes (query and payload as JSON text, expiry in
  // milliseconds); checkpoints are the pipeline's record of the pages sent (src/push/status.ts).
  _PushStatus: {
    fields: {
      pushTime: { type: 'String' },
      source: { type: 'String' },
      query: { type: 'String' },
      payload: { type: 'String' },
      title: { type: 'String' },
      expiry: { type: 'Number' },
      expiration_interval: { type: 'Number' },
      status: { type: 'String' },
      numSent: { type: 'Number' },
      numFailed: { type: 'Number' },
      sentPerType: { type: 'Object' },
      failedPerType: { type: 'Object' },
      sentPerUTCOffset: { type: 'Object' },
      failedPerUTCOffset: { type: 'Object' },
      errorMessage: { type: 'String' },
      checkpoints: { type: 'Object' },
    },
    unique: [],
    indexed: [],
  },
  // Cloud code jobs (src/rest/jobs): a run's status, and the schedules Parse Dashboard edits
  // (its field shapes: params as JSON text, startAfter ISO text, timeOfDay "HH:MM:SS.mmmZ"),
  // plus nextRunAt, when the schedule runs next.
  _JobStatus: {
    fields: {
      jobName: { type: 'String' },
      source: { type: 'String' },
      status: { type: 'String' },
      message: { type: 'String' },
      params: { type: 'Object' },
      startedAt: { type: 'Date' },
      finishedAt: { type: 'Date' },
    },
    unique: [],
    indexed: [],
  },
  _JobSchedule: {
    fields: {
      jobName: { type: 'String' },
      description: { type: 'String' },
      params: { type: 'String' },
      startAfter: { type: 'String' },
      daysOfWeek: { type: 'Array' },
      timeOfDay: { type: 'String' },
      lastRun: { type: 'Number' },
      repeatMinutes: { type: 'Number' },
      nextRunAt: { type: 'Date' },
    },
    unique: [],
    indexed: [],
  },
};

/**
 * The fields of a built-in class that lead one of its own indexes (made by ddlFor below, on the
 * expression queries read, and absent from the schema's `indexes`).
 */
export function builtinIndexedFields(className: string): readonly string[] {
  const builtin = Object.hasOwn(BUILTIN, className) ? BUILTIN[className]! : null;
  return builtin ? [...builtin.unique, ...builtin.indexed, ...(builtin.uniqueTogether ?? []).map((fields) => fields[0]!)] : [];
}

/** The name of the unique index on a built-in field, as the storage reports it in a UniqueViolation. */
export function uniqueIndexName(field: string): string {
  return `builtin:${field}`;
}

/** Which unique field a violated index belongs to, from its physical name. */
export function uniqueField(physicalIndex: string): string | null {
  const match = /builtin:([A-Za-z]+)$/.exec(physicalIndex);
  return match ? match[1]! : null;
}

/**
 * Creates a built-in class with its fields and indexes the first time it is used. Its schema
 * can gain fields like any class; the built-in ones keep their types.
 */
export async function ensureBuiltinClass(schemas: SchemaService, className: string): Promise<ClassSchema> {
  const existing = await schemas.get(className);
  if (existing) return existing;
  const builtin = BUILTIN[className];
  if (!builtin) throw new Error(`${className} is not a built-in class with a definition`);
  const created = await schemas.change(
    className,
    (current) => current ?? { className, fields: { ...builtin.fields }, classLevelPermissions: DEFAULT_CLP, indexes: {} },
    (current, next) => (current ? [] : ddlFor(builtin, next)),
  );
  return created!;
}

function ddlFor(builtin: BuiltinClass, schema: ClassSchema): DdlStep[] {
  const step = (field: string, unique: boolean): DdlStep => ({
    kind: 'createIndex',
    name: unique ? uniqueIndexName(field) : `builtin_${field}`,
    keys: [{ ...fieldAccess(field, schema.fields[field]), descending: false }],
    unique,
  });
  const together = (builtin.uniqueTogether ?? []).map(
    (fields): DdlStep => ({ kind: 'createIndex', name: uniqueIndexName(fields.join('_')), keys: fields.map((field) => ({ ...fieldAccess(field, schema.fields[field]), descending: false })), unique: true }),
  );
  return [...builtin.unique.map((field) => step(field, true)), ...builtin.indexed.map((field) => step(field, false)), ...together];
}
