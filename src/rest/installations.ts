import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { classGrant } from '../auth/clp.ts';
import { ensureBuiltinClass } from '../schema/builtin.ts';
import { UniqueViolation, type StoredObject } from '../storage/port.ts';
import type { WhereNode } from '../query/ast.ts';
import { planWrite, type WritePlan } from './write-plan.ts';
import { INTERNAL, writeDelete } from './write/pipeline.ts';
import { insertObject, modifyObject, notFound, readObject, removeObject } from './objects.ts';
import { queryClass, type FindParams } from './find.ts';
import type { Shape } from './shape.ts';
import { ok, principals, type RequestContext, type Result } from './context.ts';
import { quote } from '../errors/quote.ts';

export const INSTALLATION = '_Installation';

/** Spec 2.8's five platforms, and `web`, which the JavaScript SDK saves (decisions.md). */
const DEVICE_TYPES: ReadonlySet<string> = new Set(['ios', 'android', 'winrt', 'winphone', 'dotnet', 'web']);
/** The SDKs generate installation ids as UUIDs; any letter case is accepted and kept in lower case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A channel starts with a letter; the empty string is the broadcast channel. */
const CHANNEL = /^(?:[A-Za-z][A-Za-z0-9_-]*)?$/;
/** An APNs token in hex: kept in lower case, so that one device cannot appear under two spellings. */
const APNS_TOKEN = /^[0-9A-Fa-f]{64}$/;
/** Fields that cannot change once they have a value (spec 2.8 "Read-only"). */
const FIXED = ['deviceType', 'installationId', 'pushType'] as const;
/** How many installations one device token may match before a look-up stops counting. */
const MATCH_LIMIT = 1000;
const ZONES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('timeZone'));

type Fields = Record<string, unknown>;

export function installationUrl(ctx: RequestContext, objectId: string): string {
  return `${ctx.publicUrl}/1/installations/${encodeURIComponent(objectId)}`;
}

/**
 * POST /1/installations (spec 4.9). A new installation answers 201, Location, `{objectId,
 * createdAt}`. As the Parse SDKs expect, a POST for a device the app knows already updates that
 * installation instead and answers 200 `{objectId, createdAt, updatedAt}`: the one with the same
 * installationId, or the one holding the same deviceToken (see `save`).
 */
export async function createInstallation(ctx: RequestContext, body: unknown): Promise<Result> {
  const fields = checkFields(bodyObject(body), 'create');
  // The SDKs name their installation in X-Svc-Installation-Id (or `_InstallationId`) on every
  // request; a body without installationId means that one. The master key speaks for no device.
  if (fields.installationId === undefined && !ctx.auth.isMaster && ctx.auth.installationId !== null) {
    fields.installationId = installationIdOf(ctx.auth.installationId);
  }
  if (typeof fields.installationId !== 'string' && typeof fields.deviceToken !== 'string') {
    throw Errors.missingRequiredField('An installation needs an installationId or a deviceToken.');
  }
  const plan = planWrite(fields);
  await ensureBuiltinClass(ctx.app.schemas, INSTALLATION);
  try {
    return await save(ctx, fields, plan);
  } catch (error) {
    if (!(error instanceof UniqueViolation)) throw error;
  }
  // Two first saves of one device at once: the unique index let one create the installation;
  // this one now finds it and updates it.
  try {
    return await save(ctx, fields, plan);
  } catch (error) {
    throw error instanceof UniqueViolation ? duplicateId() : error;
  }
}

/** GET /1/installations/<objectId>: any key; the installation's ACL applies. */
export function getInstallation(ctx: RequestContext, objectId: string, shape?: Shape): Promise<Result> {
  return readObject(ctx, INSTALLATION, objectId, shape);
}

/** GET /1/installations: the master key only (spec 4.9, 5); other keys answer 403/119. */
export function findInstallations(ctx: RequestContext, params: FindParams): Promise<Result> {
  requireMaster(ctx, 'query');
  return queryClass(ctx, INSTALLATION, params);
}

/** PUT /1/installations/<objectId>: `{updatedAt}`; read-only fields answer 136 when they would change. */
export async function updateInstallation(ctx: RequestContext, objectId: string, body: unknown): Promise<Result> {
  const fields = checkFields(bodyObject(body), 'update');
  let taken: TokenClaim | null = null;
  let result: Result;
  try {
    result = await modifyObject(ctx, INSTALLATION, objectId, planWrite(fields), (current) => {
      checkChange(current, fields);
      taken = tokenClaim(current, fields);
    });
  } catch (error) {
    throw error instanceof UniqueViolation ? duplicateId() : error;
  }
  if (taken) await releaseToken(ctx, taken);
  return result;
}

/** DELETE /1/installations/<objectId>: the master key only; `{}`. */
export function deleteInstallation(ctx: RequestContext, objectId: string): Promise<Result> {
  requireMaster(ctx, 'delete');
  return removeObject(ctx, INSTALLATION, objectId);
}

function requireMaster(ctx: RequestContext, what: string): void {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden(`Only the master key may ${what} installations.`);
}

/** A device token an installation has just taken, which no other installation of its app may keep. */
interface TokenClaim {
  readonly deviceToken: string;
  readonly objectId: string;
  readonly appIdentifier: unknown;
}

/**
 * Where a POST goes, following Parse Server so that its clients see what they are used to:
 * - the installation with this installationId, unless the deviceToken belongs to a single
 *   installation without an installationId: that older record takes over the id, and the one
 *   that had it is removed;
 * - otherwise the one installation holding the deviceToken, when it has no installationId or
 *   the request names none;
 * - several installations holding the token and no installationId to tell them apart: 132;
 * - otherwise a new installation.
 * Whatever the target, other installations left holding the token are removed afterwards.
 */
async function save(ctx: RequestContext, fields: Fields, plan: WritePlan): Promise<Result> {
  const installationId = typeof fields.installationId === 'string' ? fields.installationId : null;
  const deviceToken = typeof fields.deviceToken === 'string' ? fields.deviceToken : null;
  const { byId, byToken } = await lookUp(ctx, installationId, deviceToken);
  const [single] = byToken.length === 1 ? byToken : [];
  let target: StoredObject | null = null;
  let replaced: StoredObject | null = null;
  if (byId && single && !hasValue(single.data.installationId)) {
    target = single;
    replaced = byId;
  } else if (byId) target = byId;
  else if (single && (!hasValue(single.data.installationId) || !installationId)) target = single;
  else if (byToken.length > 1 && !installationId) throw Errors.invalidInstallationId('Several installations hold this deviceToken: name the installationId.');

  if (!target) {
    if (fields.deviceType === undefined) throw Errors.missingRequiredField('deviceType is required to create an installation.');
    checkGcm(fields);
    const result = await insertObject(ctx, INSTALLATION, plan, { mayCreateClass: true, location: (objectId) => installationUrl(ctx, objectId) });
    const objectId = String((result.body as { objectId: string }).objectId);
    if (deviceToken) await releaseToken(ctx, { deviceToken, objectId, appIdentifier: fields.appIdentifier });
    return result;
  }

  // The permissions and the read-only fields are checked before the replaced installation goes,
  // so that a refused update removes nothing.
  const schema = await ctx.app.schemas.get(INSTALLATION);
  if (schema) classGrant(ctx.auth, schema, 'update');
  checkChange(target, fields);
  if (!(await ctx.app.store.canWrite(INSTALLATION, target.objectId, principals(ctx)))) throw notFound(INSTALLATION, target.objectId);
  if (replaced) await writeDelete(ctx.app, INTERNAL, { className: INSTALLATION, objectId: replaced.objectId, write: null });
  let taken: TokenClaim | null = null;
  const result = await modifyObject(ctx, INSTALLATION, target.objectId, plan, (current) => {
    checkChange(current, fields);
    taken = tokenClaim(current, fields);
  });
  if (taken) await releaseToken(ctx, taken);
  return ok({ objectId: target.objectId, createdAt: target.createdAt, ...(result.body as object) });
}

async function lookUp(ctx: RequestContext, installationId: string | null, deviceToken: string | null): Promise<{ byId: StoredObject | null; byToken: StoredObject[] }> {
  const nodes: WhereNode[] = [];
  if (installationId) nodes.push(equals('installationId', installationId));
  if (deviceToken) nodes.push(equals('deviceToken', deviceToken));
  const found = await ctx.app.store.find(INSTALLATION, { where: nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes }, order: [], limit: MATCH_LIMIT, skip: 0 });
  return {
    byId: (installationId && found.find((object) => object.data.installationId === installationId)) || null,
    byToken: deviceToken ? found.filter((object) => object.data.deviceToken === deviceToken) : [],
  };
}

function equals(field: string, value: string): WhereNode {
  return { kind: 'compare', field: { kind: 'doc', path: [field] }, op: 'eq', value, as: 'text' };
}

/** The token a write gives (or confirms to) an installation. */
function tokenClaim(current: StoredObject, fields: Fields): TokenClaim | null {
  if (typeof fields.deviceToken !== 'string') return null;
  const appIdentifier = Object.hasOwn(fields, 'appIdentifier') ? fields.appIdentifier : current.data.appIdentifier;
  return { deviceToken: fields.deviceToken, objectId: current.objectId, appIdentifier };
}

/**
 * A device token reaches one installation of an app: when another installation still holds it,
 * the device was reinstalled or reset, and pushing to both would deliver everything twice. Only
 * installations of the same client app go (same appIdentifier, when one is known), as in Parse.
 */
async function releaseToken(ctx: RequestContext, claim: TokenClaim): Promise<void> {
  const holders = await ctx.app.store.find(INSTALLATION, { where: equals('deviceToken', claim.deviceToken), order: [], limit: MATCH_LIMIT, skip: 0 });
  for (const holder of holders) {
    if (holder.objectId === claim.objectId) continue;
    if (typeof claim.appIdentifier === 'string' && holder.data.appIdentifier !== claim.appIdentifier) continue;
    await writeDelete(ctx.app, INTERNAL, { className: INSTALLATION, objectId: holder.objectId, write: null });
  }
}

/**
 * Spec 2.8's read-only fields: deviceType, installationId and pushType may be given once (the
 * same value again is fine, as SDKs resend them); a deviceToken may change only on an
 * installation that has an installationId. Anything else answers 136.
 */
function checkChange(current: StoredObject, fields: Fields): void {
  for (const field of FIXED) {
    if (!Object.hasOwn(fields, field) || !hasValue(current.data[field])) continue;
    if (fields[field] !== current.data[field]) throw Errors.changedImmutableField(`${field} cannot change once it is set.`);
  }
  if (!Object.hasOwn(fields, 'deviceToken') || !hasValue(current.data.deviceToken) || fields.deviceToken === current.data.deviceToken) return;
  if (!hasValue(current.data.installationId) && typeof fields.installationId !== 'string') {
    throw Errors.changedImmutableField('The deviceToken of an installation without an installationId cannot change.');
  }
}

/** Spec 2.8: an Android installation registered for GCM needs the token and the sender id. */
function checkGcm(fields: Fields): void {
  if (fields.deviceType !== 'android' || fields.pushType !== 'gcm') return;
  for (const field of ['deviceToken', 'GCMSenderId']) {
    if (typeof fields[field] !== 'string' || fields[field] === '') throw Errors.missingRequiredField(`An Android installation with pushType gcm needs ${field}.`);
  }
}

/**
 * Checks the fields of spec 2.8 and returns the body with them normalised; every other field is
 * checked like a field of any class. On update, a Delete of a read-only field is passed on for
 * `checkChange` to refuse as a change.
 */
function checkFields(input: Fields, mode: 'create' | 'update'): Fields {
  const fields: Fields = { ...input };
  const deleted = (field: string) => mode === 'update' && isDelete(fields[field]);
  if (Object.hasOwn(fields, 'deviceType') && !deleted('deviceType')) {
    const value = fields.deviceType;
    if (typeof value !== 'string' || !DEVICE_TYPES.has(value)) throw Errors.invalidDeviceType(`deviceType must be one of ${[...DEVICE_TYPES].join(', ')}; got ${quote(value)}.`);
  }
  if (Object.hasOwn(fields, 'installationId') && !deleted('installationId')) fields.installationId = installationIdOf(fields.installationId);
  if (Object.hasOwn(fields, 'pushType') && !deleted('pushType') && typeof fields.pushType !== 'string') throw Errors.incorrectType('pushType must be a string.');
  if (Object.hasOwn(fields, 'deviceToken') && !isDelete(fields.deviceToken)) {
    const token = fields.deviceToken;
    if (typeof token !== 'string' || token === '') throw Errors.incorrectType('deviceToken must be a non-empty string.');
    fields.deviceToken = APNS_TOKEN.test(token) ? token.toLowerCase() : token;
  }
  if (Object.hasOwn(fields, 'GCMSenderId') && !isDelete(fields.GCMSenderId) && typeof fields.GCMSenderId !== 'string') throw Errors.incorrectType('GCMSenderId must be a string.');
  if (Object.hasOwn(fields, 'channels')) checkChannels(fields.channels);
  if (Object.hasOwn(fields, 'timeZone') && !isDelete(fields.timeZone) && !isTimeZone(fields.timeZone)) {
    throw Errors.validationError(`timeZone must be an IANA time zone name such as "Europe/Paris"; got ${quote(fields.timeZone)}.`);
  }
  return fields;
}

function installationIdOf(value: unknown): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw Errors.invalidInstallationId(`installationId must be a UUID; got ${quote(value)}.`);
  return value.toLowerCase();
}

/** channels: an array of names, an Add / AddUnique / Remove of names, or a Delete (112 otherwise). */
function checkChannels(value: unknown): void {
  if (isDelete(value)) return;
  let names = value;
  if (isPlainObject(value) && '__op' in value) {
    if (value.__op !== 'Add' && value.__op !== 'AddUnique' && value.__op !== 'Remove') throw Errors.invalidChannelName(`channels cannot take the ${quote(value.__op, 40)} operator.`);
    names = value.objects;
  }
  if (!Array.isArray(names)) throw Errors.invalidChannelName('channels must be an array of channel names.');
  for (const name of names) {
    if (typeof name !== 'string' || !CHANNEL.test(name)) {
      throw Errors.invalidChannelName(`Invalid channel name ${quote(name)}: a channel starts with a letter and holds letters, digits, "_" and "-" (or is "" for everyone).`);
    }
  }
}

/** Canonical IANA names, and the aliases the platform's time zone data knows ("US/Pacific", "UTC"). */
function isTimeZone(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 64) return false;
  if (ZONES.has(value)) return true;
  // Newer engines also accept offsets such as "+01:00" here; those are not zone names.
  if (!/^[A-Za-z]/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function isDelete(value: unknown): boolean {
  return isPlainObject(value) && value.__op === 'Delete';
}

function hasValue(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function bodyObject(body: unknown): Fields {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  return body;
}

function duplicateId() {
  return Errors.duplicateValue('Another installation has this installationId.');
}
