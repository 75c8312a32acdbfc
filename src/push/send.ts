import type { AppHandle } from '../apps/registry.ts';
import { INTERNAL, writeUpdate, type WriteTarget } from '../rest/write/pipeline.ts';
import type { StoredObject } from '../storage/port.ts';
import type { DeliveryResult, NetworkName, PushDevice, PushMessage } from './networks/network.ts';
import { CREDENTIAL_NAMES, networkOf, type PushNetworks } from './networks-provider.ts';
import type { PageOutcome } from './status.ts';

const INSTALLATION = '_Installation';

/** What the log needs of a page's delivery. */
export interface SendLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SendOptions {
  /** The batch's UTC offset (local-time pushes). */
  readonly offset: string | null;
  /** Devices a network asks to try later (429, 5xx) are left for another attempt rather than failed. */
  readonly canRetry: boolean;
  /** The devices were sent to before (a retry): `badge: "Increment"` was applied then, not again. */
  readonly resend: boolean;
}

/** A page's outcome, less the devices left for another attempt. */
export interface SentPage extends PageOutcome {
  readonly retryIds: readonly string[];
  /** The longest Retry-After the networks asked for among them; null when none said. */
  readonly retryAfterMs: number | null;
}

/**
 * Delivers one message to one page of installations: grouped by network, each group sent in
 * one call; a device type whose network the app has no credentials for counts as failed, with
 * the credential named. Tokens a network calls invalid are removed from their installations.
 */
export async function sendPage(app: AppHandle, installations: readonly StoredObject[], message: PushMessage, networks: PushNetworks, log: SendLog, options: SendOptions): Promise<SentPage> {
  const sentPerType: Record<string, number> = {};
  const failedPerType: Record<string, number> = {};
  const errors = new Set<string>();
  const fail = (deviceType: string, error: string) => {
    failedPerType[deviceType] = (failedPerType[deviceType] ?? 0) + 1;
    errors.add(error);
  };
  const groups = new Map<NetworkName, StoredObject[]>();
  for (const installation of installations) {
    const deviceType = typeOf(installation);
    const name = networkOf(deviceType);
    if (!name) {
      fail(deviceType, `No delivery network serves deviceType ${JSON.stringify(deviceType)}.`);
      continue;
    }
    if (!networks[name]) {
      fail(deviceType, `The app has no ${CREDENTIAL_NAMES[name]} in its push settings: ${deviceType} devices were not sent to.`);
      continue;
    }
    const group = groups.get(name);
    if (group) group.push(installation);
    else groups.set(name, [installation]);
  }
  const invalid: PushDevice[] = [];
  const retryIds: string[] = [];
  let retryAfterMs: number | null = null;
  for (const [name, group] of groups) {
    const increment = name === 'apns' && isIncrement(message.data.badge) && !options.resend;
    const badges = increment ? await incrementBadges(app, group) : null;
    const devices = group.map((installation) => deviceOf(installation, badges?.get(installation.objectId), isIncrement(message.data.badge)));
    let results: DeliveryResult[];
    try {
      results = await networks[name]!.send(devices, message);
    } catch (error) {
      // A network that throws (contrary to its contract) fails the group, not the page.
      const text = error instanceof Error ? error.message : String(error);
      log.warn({ network: name, err: text }, 'push: a delivery network failed a whole group');
      results = devices.map((device) => ({ objectId: device.objectId, ok: false, error: `${name}: ${text}` }));
    }
    const byId = new Map(results.map((result) => [result.objectId, result]));
    for (const device of devices) {
      const result = byId.get(device.objectId);
      if (result?.ok) sentPerType[device.deviceType] = (sentPerType[device.deviceType] ?? 0) + 1;
      else if (result?.retryable && options.canRetry) {
        retryIds.push(device.objectId);
        if (result.retryAfterMs !== undefined) retryAfterMs = Math.max(retryAfterMs ?? 0, result.retryAfterMs);
      } else fail(device.deviceType, result?.error ?? `${name} gave no result for a device.`);
      if (result?.invalidToken) invalid.push(device);
    }
  }
  for (const device of invalid) await removeToken(app, device);
  return { sentPerType, failedPerType, errors: [...errors], offset: options.offset, retryIds, retryAfterMs };
}

function typeOf(installation: StoredObject): string {
  const deviceType = installation.data.deviceType;
  return typeof deviceType === 'string' ? deviceType : 'unknown';
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** `badge`: the installation's new badge after `badge: "Increment"` (APNs devices). */
function deviceOf(installation: StoredObject, badge: number | undefined, increment: boolean): PushDevice {
  const { data } = installation;
  const stored = typeof data.badge === 'number' ? data.badge : null;
  return {
    objectId: installation.objectId,
    deviceType: typeOf(installation),
    deviceToken: String(data.deviceToken),
    pushType: text(data.pushType),
    GCMSenderId: text(data.GCMSenderId),
    appIdentifier: text(data.appIdentifier),
    // With "Increment" a device shows its own badge (APNs devices the new one); otherwise the push's.
    badge: badge ?? (increment ? stored : null),
  };
}

/** Spec 2.12: `badge: "Increment"` (Parse reads it in any letter case). */
export function isIncrement(badge: unknown): boolean {
  return typeof badge === 'string' && badge.toLowerCase() === 'increment';
}

/**
 * Adds one to the stored badge of each installation, in one transaction, each on its locked row
 * so concurrent pushes both count; returns the new values, which are what the devices show. A
 * page sent again after a crash adds one again: delivery is at least once.
 */
async function incrementBadges(app: AppHandle, installations: readonly StoredObject[]): Promise<Map<string, number>> {
  const badges = new Map<string, number>();
  await app.unitOfWork(async (unit) => {
    for (const installation of installations) {
      await writeUpdate(unit as WriteTarget, INTERNAL, {
        className: INSTALLATION,
        objectId: installation.objectId,
        write: null,
        change: (current) => {
          const badge = (typeof current.data.badge === 'number' ? current.data.badge : 0) + 1;
          badges.set(installation.objectId, badge);
          return { object: { ...current, updatedAt: new Date().toISOString(), data: { ...current.data, badge } }, relations: [] };
        },
      });
    }
  });
  return badges;
}

/** decisions.md "Push": an invalid token leaves its installation (unless it was replaced since). */
async function removeToken(app: AppHandle, device: PushDevice): Promise<void> {
  await writeUpdate(app, INTERNAL, {
    className: INSTALLATION,
    objectId: device.objectId,
    write: null,
    change: (current) => {
      if (current.data.deviceToken !== device.deviceToken) return { object: current, relations: [] };
      const { deviceToken: _removed, ...rest } = current.data;
      return { object: { ...current, updatedAt: new Date().toISOString(), data: rest }, relations: [] };
    },
  });
}
