/** Devices, messages and endpoints for the delivery network tests (src/push/networks/*.test.ts). */
import { TEST_CA } from './push-test-keys.ts';

export interface TestDevice {
  readonly objectId: string;
  readonly deviceType: string;
  readonly deviceToken: string;
  readonly pushType: string | null;
  readonly GCMSenderId: string | null;
  readonly appIdentifier: string | null;
  readonly badge: number | null;
}

let counter = 0;

export function device(deviceType: string, deviceToken: string, extra: Partial<TestDevice> = {}): TestDevice {
  counter++;
  return { objectId: `inst${counter}`, deviceType, deviceToken, pushType: null, GCMSenderId: null, appIdentifier: null, badge: null, ...extra };
}

/** A random APNs-style token: 32 bytes in hexadecimal. */
export function apnsToken(): string {
  return Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256))).toString('hex');
}

export function message(data: Record<string, unknown>, expiresAt: Date | null = null) {
  return { pushStatusId: `ps${++counter}`, data, expiresAt };
}

/** Every network endpoint pointed at a port nothing listens on, unless given; the test CA trusted. */
export function endpoints(overrides: Record<string, unknown> = {}) {
  const nowhere = 'https://127.0.0.1:9';
  return {
    apnsUrl: nowhere,
    apnsSandboxUrl: nowhere,
    fcmUrl: nowhere,
    fcmTokenUrl: `${nowhere}/token`,
    wnsTokenUrl: `${nowhere}/token`,
    wnsChannelHosts: ['127.0.0.1'],
    ca: [TEST_CA],
    concurrency: 4,
    ...overrides,
  };
}

/** A clock the test moves. */
export function testClock(start = Date.now()) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}
