import { appendFileSync } from 'node:fs';

/**
 * Delivery networks for test/api/push.test.ts, loaded by the server under test with
 * `--test-push-networks` in place of APNs, FCM, WNS and Web Push. Each `send` is written to the
 * file named by PUSH_LOG as one JSON line (network, devices, message), so a test sees exactly what
 * was delivered. An app whose name holds `no-<network>` (no-apns, no-fcm, no-wns, no-webpush) has
 * no credentials for it. A token starting with `invalid` is refused as no longer valid, one
 * starting with `refused` is refused for another reason. PUSH_SLOW_MS delays every send. For an
 * app whose name holds `broken`, getting the networks fails.
 */
const NAMES = ['apns', 'fcm', 'wns', 'webpush'] as const;

interface Device {
  readonly objectId: string;
  readonly deviceType: string;
  readonly deviceToken: string;
  readonly badge: number | null;
}

interface Message {
  readonly pushStatusId: string;
  readonly data: Record<string, unknown>;
  readonly expiresAt: Date | null;
}

export default function networksOf(app: { applicationId: string; appName: string }): Record<string, unknown> {
  const log = process.env.PUSH_LOG;
  if (!log) throw new Error('PUSH_LOG is not set');
  // An app named `…broken…`: its networks cannot be had at all (the provider fails).
  if (app.appName.includes('broken')) throw new Error('the networks are down');
  const networks: Record<string, unknown> = {};
  for (const name of NAMES) {
    if (app.appName.includes(`no-${name}`)) continue;
    networks[name] = {
      name,
      async send(devices: readonly Device[], message: Message) {
        // PUSH_SLOW_MS: a network that takes its time, so a test can stop the server mid-push.
        const slow = Number(process.env.PUSH_SLOW_MS ?? 0);
        if (slow > 0) await new Promise((resolve) => setTimeout(resolve, slow));
        appendFileSync(
          log,
          `${JSON.stringify({ at: Date.now(), pid: process.pid, appId: app.applicationId, network: name, pushStatusId: message.pushStatusId, data: message.data, expiresAt: message.expiresAt?.toISOString() ?? null, devices: devices.map(({ objectId, deviceType, deviceToken, badge }) => ({ objectId, deviceType, deviceToken, badge })) })}\n`,
        );
        return devices.map((device) => {
          if (device.deviceToken.startsWith('invalid')) return { objectId: device.objectId, ok: false, error: `${name}: the token is no longer valid`, invalidToken: true };
          if (device.deviceToken.startsWith('refused')) return { objectId: device.objectId, ok: false, error: `${name}: refused` };
          return { objectId: device.objectId, ok: true };
        });
      },
      async close() {},
    };
  }
  return networks;
}
