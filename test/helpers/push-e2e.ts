import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before } from 'node:test';
import { ApnsServer } from './apns-server.ts';
import { newApp, type AppClient } from './client.ts';
import { FcmServer, WnsServer } from './fcm-wns-servers.ts';
import { start, stop, tempDatabase, tempDir, type Started } from './process.ts';
import { newApnsKey, newServiceAccount, newVapidKeys } from './push-test-keys.ts';
import { ADMIN } from './targets.ts';
import { WebPushServer } from './webpush-server.ts';

/** The local APNs, FCM, WNS and Web Push servers a Basalt process of its own delivers to. */
export interface Networks {
  readonly apns: ApnsServer;
  readonly fcm: FcmServer;
  readonly wns: WnsServer;
  readonly web: WebPushServer;
}

/**
 * A Basalt process per backend whose real delivery networks (no --test-push-networks) are pointed
 * at local protocol servers, trusting the test CA; apps made by `app()` hold credentials for all
 * four networks, which the local servers accept.
 */
export function realPushServer(backend: 'sqlite' | 'postgres'): { server: () => RealPushServer } {
  let current: RealPushServer | null = null;
  const cleanup: (() => Promise<void> | void)[] = [];
  before(async () => {
    const networks = { apns: await ApnsServer.start(), fcm: await FcmServer.start(), wns: await WnsServer.start(), web: await WebPushServer.start() };
    cleanup.push(() => Promise.all([networks.apns.close(), networks.fcm.close(), networks.wns.close(), networks.web.close()]).then(() => {}));
    const apnsKey = newApnsKey();
    const token = { key: apnsKey.privatePem, keyId: 'KEYE2E0001', teamId: 'TEAME2E001' };
    networks.apns.keys.set(token.keyId, { publicKey: apnsKey.publicKey, teamId: token.teamId });
    const google = newServiceAccount('basalt-e2e');
    networks.fcm.accounts.set(google.account.client_email!, { publicKey: google.publicKey, projectId: google.account.project_id! });
    const windows = { clientId: 'ms-app://s-1-15-2-basalt-e2e', clientSecret: 'wns-e2e-secret' };
    networks.wns.clients.set(windows.clientId, windows.clientSecret);
    const credentials = {
      ios: [{ token, topic: 'com.example.basalt' }],
      android: [{ firebaseServiceAccount: google.account }],
      windows,
      web: { vapidDetails: { subject: 'mailto:push@example.com', ...newVapidKeys() } },
    };
    const dir = tempDir();
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const env: Record<string, string> = { BASALT_DATA_DIR: dir, BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password, BASALT_QUEUE_SWEEP_INTERVAL: '1000', BASALT_QUEUE_MAX_ATTEMPTS: '2', BASALT_QUEUE_RETRY_DELAY: '50' };
    if (backend === 'postgres') {
      const db = await tempDatabase();
      cleanup.push(() => db.drop());
      env.BASALT_DATABASE_URL = db.url;
    }
    const args = [
      '--apns-url', networks.apns.url,
      '--apns-sandbox-url', networks.apns.url,
      '--fcm-url', networks.fcm.url,
      '--fcm-token-url', networks.fcm.tokenUrl,
      '--wns-token-url', networks.wns.tokenUrl,
      '--wns-channel-hosts', '127.0.0.1',
      '--push-ca-file', 'test/helpers/push-certs/ca.pem',
    ];
    const started = await start(env, args);
    cleanup.push(async () => void (await stop(started)));
    current = new RealPushServer(backend, started, networks, credentials);
  });
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  return { server: () => current! };
}

export class RealPushServer {
  constructor(
    readonly backend: 'sqlite' | 'postgres',
    readonly process: Started,
    readonly networks: Networks,
    readonly credentials: Record<string, unknown>,
  ) {}

  /** An app of its own with credentials for the four networks, set through /1/apps. */
  app(): Promise<AppClient> {
    return newApp({ backend: this.backend, url: this.process.url }, { appName: `e2e-${randomUUID().slice(0, 8)}`, rateLimits: { authRequestsPerMinute: 0 }, push: this.credentials });
  }

  /** A fresh device token of each kind, each one a device of the local servers. */
  tokens(): { ios: string; android: string; winrt: string; web: string } {
    const id = randomUUID().replaceAll('-', '');
    return { ios: `${id}${id}`, android: `fcm-${id}`, winrt: this.networks.wns.channel(`wns-${id}`), web: this.networks.web.subscribe(`web-${id}`) };
  }
}

/** The Web Push subscription id in a token made by `tokens()`. */
export function webPushId(token: string): string {
  return String(JSON.parse(token).endpoint).split('/').pop()!;
}
