import { ApiFailure } from './errors.ts';
import type { App, ClassSchema, FieldSchema, KeyName, OutboxMail, ParseObject, ScanEntry, StoredFile, Where } from './types.ts';

/**
 * The one module that talks to the server. Account calls (/1/apps) carry the account's email
 * and password; app calls carry the app's master key. Both are held by the caller in memory only
 * (docs/dashboard.md "Keys"), never written to any browser storage.
 */

export interface AccountCredentials {
  readonly email: string;
  readonly password: string;
}

async function call<T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    // Credentials travel in headers; no cookie is ever needed.
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: a proxy's page. Said below by status.
  }
  if (!response.ok) {
    const failure = parsed as { code?: unknown; error?: unknown } | undefined;
    throw new ApiFailure(response.status, typeof failure?.code === 'number' ? failure.code : 0, typeof failure?.error === 'string' ? failure.error : '');
  }
  return parsed as T;
}

/** What the API console shows: the status and the answer's text, whatever they are (no failure is thrown). */
export interface RawAnswer {
  readonly status: number;
  readonly text: string;
}

/** One request exactly as the API console composed it; its headers are the caller's. */
export async function sendRaw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const response = await fetch(path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body,
    credentials: 'omit',
    cache: 'no-store',
  });
  return { status: response.status, text: await response.text() };
}

export class AccountApi {
  constructor(private readonly credentials: AccountCredentials) {}

  private headers(): Record<string, string> {
    return { 'X-Svc-Email': this.credentials.email, 'X-Svc-Password': this.credentials.password };
  }

  async listApps(): Promise<App[]> {
    return (await call<{ results: App[] }>('GET', '/1/apps', this.headers())).results;
  }

  createApp(appName: string): Promise<App> {
    return call<App>('POST', '/1/apps', this.headers(), { appName });
  }

  updateApp(applicationId: string, change: Record<string, unknown>): Promise<App> {
    return call<App>('PUT', `/1/apps/${encodeURIComponent(applicationId)}`, this.headers(), change);
  }

  rotateKey(applicationId: string, key: KeyName): Promise<App> {
    return call<App>('POST', `/1/apps/${encodeURIComponent(applicationId)}/rotateKey`, this.headers(), { key });
  }
}

export interface FindOptions {
  readonly where?: Where;
  readonly order?: string;
  readonly limit?: number;
  readonly keys?: readonly string[];
  /** Pointer fields answered as the objects they point at. */
  readonly include?: readonly string[];
}

/** Calls of one app, as its master key. */
export class AppApi {
  constructor(
    readonly applicationId: string,
    private readonly masterKey: string,
  ) {}

  private headers(): Record<string, string> {
    return { 'X-Svc-Application-Id': this.applicationId, 'X-Svc-Master-Key': this.masterKey };
  }

  async schemas(): Promise<ClassSchema[]> {
    return (await call<{ results: ClassSchema[] }>('GET', '/1/schemas', this.headers())).results;
  }

  createClass(className: string): Promise<ClassSchema> {
    return call<ClassSchema>('POST', `/1/schemas/${encodeURIComponent(className)}`, this.headers(), { className });
  }

  addField(className: string, name: string, field: FieldSchema): Promise<ClassSchema> {
    return call<ClassSchema>('PUT', `/1/schemas/${encodeURIComponent(className)}`, this.headers(), { className, fields: { [name]: field } });
  }

  schema(className: string): Promise<ClassSchema> {
    return call<ClassSchema>('GET', `/1/schemas/${encodeURIComponent(className)}`, this.headers());
  }

  /** A change of fields, indexes or class-level permissions; answers the whole schema after it. */
  updateSchema(className: string, change: { fields?: Record<string, unknown>; indexes?: Record<string, unknown>; classLevelPermissions?: unknown }): Promise<ClassSchema> {
    return call<ClassSchema>('PUT', `/1/schemas/${encodeURIComponent(className)}`, this.headers(), { className, ...change });
  }

  async scans(): Promise<ScanEntry[]> {
    return (await call<{ results: ScanEntry[] }>('GET', '/1/scans', this.headers())).results;
  }

  async count(className: string, where?: Where): Promise<number> {
    const query = new URLSearchParams({ count: '1', limit: '0' });
    if (where && Object.keys(where).length) query.set('where', JSON.stringify(where));
    return (await call<{ count: number }>('GET', `${classPath(className)}?${query}`, this.headers())).count;
  }

  async find(className: string, options: FindOptions): Promise<ParseObject[]> {
    const query = new URLSearchParams();
    if (options.where && Object.keys(options.where).length) query.set('where', JSON.stringify(options.where));
    if (options.order) query.set('order', options.order);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.keys) query.set('keys', options.keys.join(','));
    if (options.include) query.set('include', options.include.join(','));
    return (await call<{ results: ParseObject[] }>('GET', `${classPath(className)}?${query}`, this.headers())).results;
  }

  create(className: string, fields: Record<string, unknown>): Promise<{ objectId: string; createdAt: string }> {
    return call('POST', classPath(className), this.headers(), fields);
  }

  update(className: string, objectId: string, fields: Record<string, unknown>): Promise<{ updatedAt: string }> {
    return call('PUT', `${classPath(className)}/${encodeURIComponent(objectId)}`, this.headers(), fields);
  }

  /** One object, or the failure (101 when it is missing). */
  get(className: string, objectId: string): Promise<ParseObject> {
    return call<ParseObject>('GET', `${classPath(className)}/${encodeURIComponent(objectId)}`, this.headers());
  }

  /** Uploads a file's bytes as they are, with its content type (POST /1/files/<name>, docs/api.md "Files"). */
  async uploadFile(name: string, bytes: Blob, contentType: string): Promise<{ name: string; url: string }> {
    const response = await fetch(`/1/files/${encodeURIComponent(name)}`, { method: 'POST', headers: { ...this.headers(), 'Content-Type': contentType || 'application/octet-stream' }, body: bytes, credentials: 'omit', cache: 'no-store' });
    const answer = (await response.json().catch(() => ({}))) as { name?: string; url?: string; code?: unknown; error?: unknown };
    if (!response.ok || typeof answer.name !== 'string') throw new ApiFailure(response.status, typeof answer.code === 'number' ? answer.code : 0, typeof answer.error === 'string' ? answer.error : '');
    return { name: answer.name, url: String(answer.url ?? '') };
  }

  /** Sends up to 50 writes in one `/1/batch` request; answers each one's failure, or null. */
  async batch(requests: readonly { method: 'POST' | 'PUT'; objectId?: string; className: string; body: Record<string, unknown> }[]): Promise<({ code: number; error: string } | null)[]> {
    const wire = requests.map((r) => ({ method: r.method, path: r.objectId ? `${classPath(r.className)}/${encodeURIComponent(r.objectId)}` : classPath(r.className), body: r.body }));
    const answers = await call<{ error?: { code: number; error: string } }[]>('POST', '/1/batch', this.headers(), { requests: wire });
    return answers.map((answer) => answer.error ?? null);
  }

  getConfig(): Promise<{ params: Record<string, unknown>; masterKeyOnly?: Record<string, boolean> }> {
    return call('GET', '/1/config', this.headers());
  }

  /** Sets the parameters named (a `{__op: Delete}` removes one), each with its masterKeyOnly flag. */
  putConfig(params: Record<string, unknown>, masterKeyOnly: Record<string, boolean>): Promise<{ result: boolean }> {
    return call('PUT', '/1/config', this.headers(), { params, masterKeyOnly });
  }

  /** An installation is changed and deleted through /1/installations, where the master key may do both. */
  updateInstallation(objectId: string, fields: Record<string, unknown>): Promise<{ updatedAt: string }> {
    return call('PUT', `/1/installations/${encodeURIComponent(objectId)}`, this.headers(), fields);
  }

  deleteInstallation(objectId: string): Promise<Record<string, never>> {
    return call('DELETE', `/1/installations/${encodeURIComponent(objectId)}`, this.headers());
  }

  /** A page of the app's stored files by name (GET /1/files); `next` is the `after` of the following page. */
  listFiles(after: string, limit: number): Promise<{ results: StoredFile[]; next?: string }> {
    const query = new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) });
    return call('GET', `/1/files?${query}`, this.headers());
  }

  deleteFile(name: string): Promise<Record<string, never>> {
    return call('DELETE', `/1/files/${encodeURIComponent(name)}`, this.headers());
  }

  /** A page of the outbox, newest first (GET /1/outbox); `next` is the `before` of the following page. */
  outbox(before: string, limit: number): Promise<{ results: OutboxMail[]; next?: string }> {
    const query = new URLSearchParams({ limit: String(limit), ...(before ? { before } : {}) });
    return call('GET', `/1/outbox?${query}`, this.headers());
  }

  /** Deletes in batches of 50 (the batch limit); answers the ids the server refused, with why. */
  async deleteMany(className: string, objectIds: readonly string[]): Promise<{ objectId: string; error: string }[]> {
    const refused: { objectId: string; error: string }[] = [];
    for (let start = 0; start < objectIds.length; start += 50) {
      const ids = objectIds.slice(start, start + 50);
      const requests = ids.map((id) => ({ method: 'DELETE', path: `${classPath(className)}/${encodeURIComponent(id)}` }));
      const answers = await call<{ error?: { error: string } }[]>('POST', '/1/batch', this.headers(), { requests });
      answers.forEach((answer, index) => {
        if (answer.error) refused.push({ objectId: ids[index]!, error: answer.error.error });
      });
    }
    return refused;
  }

  /** Deletes every object of the class in one transaction, keeping its schema (docs/api.md "Purge"). */
  purge(className: string): Promise<Record<string, never>> {
    return call('DELETE', `/1/purge/${encodeURIComponent(className)}`, this.headers());
  }

  /** Drops a class; the server refuses (255) one that still holds objects. */
  deleteClass(className: string): Promise<Record<string, never>> {
    return call('DELETE', `/1/schemas/${encodeURIComponent(className)}`, this.headers());
  }
}

function classPath(className: string): string {
  return `/1/classes/${encodeURIComponent(className)}`;
}
