import { Errors } from '../errors/index.ts';
import { decodeValue, isPlainObject } from '../encoding/values.ts';
import type { ConfigParam } from '../storage/sql-config.ts';
import { withFileUrls } from './render.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { quote } from '../errors/quote.ts';

const MAX_NAME = 128;

/**
 * GET /1/config (spec 2.9, 4.10): `{params}`, for any key. Parameters marked masterKeyOnly are
 * left out unless the master key asks; the master key also gets `masterKeyOnly`, the flag of
 * every parameter (what the dashboard edits). Files carry their URL, as in objects.
 */
export async function getConfig(ctx: RequestContext): Promise<Result> {
  const visible = [...(await ctx.app.config.params())].filter(([, param]) => ctx.auth.isMaster || !param.masterKeyOnly);
  // fromEntries defines own properties, so a parameter named "__proto__" stays a parameter.
  const params = Object.fromEntries(visible.map(([name, param]) => [name, withFileUrls(ctx, param.value)]));
  if (!ctx.auth.isMaster) return ok({ params });
  return ok({ params, masterKeyOnly: Object.fromEntries(visible.map(([name, param]) => [name, param.masterKeyOnly])) });
}

/**
 * PUT /1/config `{params, masterKeyOnly?}`, master key only (403/119 otherwise), as the Parse
 * SDKs' `Parse.Config.save` and the dashboard send it: each parameter in `params` is set, or
 * removed when its value is `{"__op": "Delete"}`; a parameter set here is hidden from other
 * keys when `masterKeyOnly` holds `true` for it, and visible to all otherwise. Parameters not
 * named stay as they are. A `masterKeyOnly` entry of `{"__op": "Delete"}` (what Parse Dashboard
 * sends along with a removal) counts as false. Answers `{result: true}`, which is what the SDKs check.
 */
export async function updateConfig(ctx: RequestContext, body: unknown): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Only the master key may change the config.');
  if (!isPlainObject(body) || !isPlainObject(body.params)) throw Errors.invalidJson('The body must be {"params": {...}} with an optional "masterKeyOnly": {...}.');
  const flags = body.masterKeyOnly ?? {};
  // Parse Dashboard removes a parameter with `{"__op": "Delete"}` in both maps: the flag goes with it.
  if (!isPlainObject(flags) || Object.values(flags).some((flag) => typeof flag !== 'boolean' && !isDeleteOp(flag))) {
    throw Errors.invalidJson('masterKeyOnly must map parameter names to true, false or {"__op": "Delete"}.');
  }

  const set = new Map<string, ConfigParam>();
  const remove: string[] = [];
  for (const [name, value] of Object.entries(body.params)) {
    checkName(name);
    if (isPlainObject(value) && '__op' in value) {
      if (value.__op !== 'Delete') throw Errors.commandUnavailable(`Config parameters take only the Delete operator; got ${quote(value.__op, 40)}.`);
      remove.push(name);
      continue;
    }
    const decoded = decodeValue(value, name);
    // A Relation lives in a class's schema and join table; a config value cannot hold one.
    if (decoded.type?.type === 'Relation') throw Errors.incorrectType(`Config parameter ${name} cannot hold a Relation.`);
    set.set(name, { value: decoded.value, masterKeyOnly: Object.hasOwn(flags, name) && flags[name] === true });
  }
  await checkSize(ctx, set, remove);
  if (set.size > 0 || remove.length > 0) await ctx.app.config.change(set, remove);
  return ok({ result: true });
}

function isDeleteOp(value: unknown): boolean {
  return isPlainObject(value) && value.__op === 'Delete' && Object.keys(value).length === 1;
}

function checkName(name: string): void {
  // Names appear as keys of every SDK's config object: any text, but not empty or huge, and none
  // of the characters neither database can store (decodeValue refuses those in values).
  if (name.length === 0 || name.length > MAX_NAME) throw Errors.invalidKeyName(`A config parameter name has 1 to ${MAX_NAME} characters.`);
  decodeValue(name, 'params');
}

/** Every SDK reads the whole config at start: it stays within the size of one object. */
async function checkSize(ctx: RequestContext, set: ReadonlyMap<string, ConfigParam>, remove: readonly string[]): Promise<void> {
  const next = new Map(await ctx.app.config.params());
  for (const name of remove) next.delete(name);
  for (const [name, param] of set) next.set(name, param);
  let size = 0;
  for (const [name, param] of next) size += Buffer.byteLength(name) + Buffer.byteLength(JSON.stringify(param.value));
  if (size > ctx.limits.objectSize) throw Errors.objectTooLarge(`The config would be ${size} bytes encoded; at most ${ctx.limits.objectSize} are allowed.`);
}
