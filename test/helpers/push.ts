import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { newApp, type AppClient, type Response } from './client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from './process.ts';
import { ADMIN } from './targets.ts';

/** One call of a test network's `send`, as test/helpers/push-networks.ts logs it. */
export interface Delivery {
  readonly at: number;
  /** The server process that sent it. */
  readonly pid: number;
  readonly appId: string;
  readonly network: string;
  readonly pushStatusId: string;
  readonly data: Record<string, unknown>;
  readonly expiresAt: string | null;
  readonly devices: { objectId: string; deviceType: string; deviceToken: string; badge: number | null }[];
}

export const PAGE_SIZE = 500;

/**
 * A Basalt process of its own per backend, whose push networks are the recording ones of
 * test/helpers/push-networks.ts (--test-push-networks), with pages of PAGE_SIZE installations;
 * a failing job is tried twice, 50 ms apart.
 */
export function pushServer(backend: 'sqlite' | 'postgres'): { server: () => PushServer } {
  let current: PushServer | null = null;
  const cleanup: (() => Promise<void> | void)[] = [];
  before(async () => {
    const dir = tempDir();
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const log = join(dir, 'deliveries.jsonl');
    writeFileSync(log, '');
    const env: Record<string, string> = { BASALT_DATA_DIR: dir, BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password, PUSH_LOG: log, BASALT_PUSH_PAGE_SIZE: String(PAGE_SIZE), BASALT_QUEUE_SWEEP_INTERVAL: '1000', BASALT_QUEUE_MAX_ATTEMPTS: '2', BASALT_QUEUE_RETRY_DELAY: '50' };
    if (backend === 'postgres') {
      const db = await tempDatabase();
      cleanup.push(() => db.drop());
      env.BASALT_DATABASE_URL = db.url;
    }
    const started = await start(env, ['--test-push-networks', 'test/helpers/push-networks.ts']);
    cleanup.push(async () => void (await stop(started)));
    current = new PushServer(backend, started, log);
  });
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  return { server: () => current! };
}

export class PushServer {
  constructor(
    readonly backend: 'sqlite' | 'postgres',
    readonly process: Started,
    private readonly log: string,
  ) {}

  /** An app of its own; `name` may hold `no-apns` etc. to leave a network without credentials. */
  app(settings: Record<string, unknown> = {}, name = 'push'): Promise<AppClient> {
    return newApp({ backend: this.backend, url: this.process.url }, { appName: `${name}-${randomUUID().slice(0, 8)}`, rateLimits: { authRequestsPerMinute: 0 }, ...settings });
  }

  deliveries(pushStatusId: string): Delivery[] {
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Delivery)
      .filter((delivery) => delivery.pushStatusId === pushStatusId);
  }

  /** The installations a push reached, by objectId, sorted. */
  reached(pushStatusId: string): string[] {
    return this.deliveries(pushStatusId)
      .flatMap((delivery) => delivery.devices.map((device) => device.objectId))
      .sort();
  }
}

/** Creates an installation with the REST key; returns its objectId. */
export async function install(app: AppClient, fields: Record<string, unknown>): Promise<string> {
  const response = await app.post('/1/installations', { installationId: randomUUID(), deviceToken: `token-${randomUUID()}`, ...fields });
  assert.equal(response.status, 201, response.text);
  return response.body.objectId;
}

/** POST /1/push; returns the response and the push status id it names. */
export async function push(app: AppClient, body: Record<string, unknown>, key: 'master' | 'rest' | 'client' = 'master'): Promise<{ response: Response; id: string }> {
  const response = await app.post('/1/push', body, { key });
  return { response, id: response.headers.get('x-svc-push-status-id') ?? '' };
}

export async function pushStatus(app: AppClient, id: string): Promise<Record<string, any>> {
  const response = await app.get(`/1/classes/_PushStatus/${id}`, { key: 'master' });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

const FINISHED = ['succeeded', 'failed', 'canceled'];

/** Polls the status until it is finished (a generous cap, no timing asserted). */
export async function finished(app: AppClient, id: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await pushStatus(app, id);
    if (FINISHED.includes(status.status)) return status;
    if (Date.now() > deadline) assert.fail(`push ${id} still ${status.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends a push that must be accepted and waits until it is finished. */
export async function pushAndWait(app: AppClient, body: Record<string, unknown>): Promise<{ id: string; status: Record<string, any> }> {
  const { response, id } = await push(app, body);
  assert.equal(response.status, 200, response.text);
  return { id, status: await finished(app, id) };
}
