import { Errors } from '../errors/index.ts';
import { ok, type RequestContext, type Result } from './context.ts';

/**
 * The Parse Server version whose REST behaviour Basalt answers as, for clients that gate on it.
 * Parse Dashboard offers field default values and `required` from 3.7.0 and the config's
 * masterKeyOnly flag from 3.9.0, and warns that a server below 7.0.0 is not supported. Basalt
 * keeps all three (the schema's two are not yet applied to writes) and answers in Parse Server
 * 7's shapes; 7.0.0 is the oldest version the Dashboard supports without its warning. See
 * docs/api.md, "Server info".
 */
export const PARSE_SERVER_VERSION = '7.0.0';

/**
 * What this server can do, in Parse Server's shape (its FeaturesRouter). Each flag is true only
 * for what Basalt really serves: clients (Parse Dashboard) show or hide whole pages by these
 * flags, so a true flag for a missing feature would open pages that fail.
 */
const FEATURES = deepFreeze({
  // GET and PUT /1/config: parameters are added, changed and removed (the Delete operator).
  globalConfig: { create: true, read: true, update: true, delete: true },
  // Function and trigger hooks (rest/hooks.ts, src/webhooks).
  hooks: { create: true, read: true, update: true, delete: true },
  // Cloud code jobs run through the queue, and their schedules run (src/rest/jobs).
  cloudCode: { jobs: true },
  // GET /1/scriptlog pages through the recent lines of the app's cloud code by these parameters.
  logs: { level: true, size: true, order: true, until: true, from: true },
  // POST /1/push sends at once or at push_time; _PushStatus keeps each push for 30 days. No
  // audiences (/1/push_audiences answers empty) and no localized payloads.
  push: { immediatePush: true, scheduledPush: true, storedPushData: true, pushAudiences: false, localization: false },
  schemas: {
    addField: true,
    removeField: true,
    addClass: true,
    removeClass: true,
    // DELETE /1/purge/<className>.
    clearAllDataFromClass: true,
    // Parse Server answers false too: there is no server-side export.
    exportClass: false,
    editClassLevelPermissions: true,
    // readUserFields / writeUserFields and pointerFields are kept and enforced.
    editPointerPermissions: true,
  },
  // Parse Server's security check report does not exist here.
  settings: { securityCheck: false },
});

/** GET /1/serverInfo, master key only (Parse Server's rule): `{features, parseServerVersion}`. */
export async function serverInfo(ctx: RequestContext): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('The server info needs the master key.');
  return ok({ features: FEATURES, parseServerVersion: PARSE_SERVER_VERSION });
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  return Object.freeze(value);
}
