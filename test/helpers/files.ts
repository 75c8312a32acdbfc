import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { basename, dirname, join } from 'node:path';
import type { AppClient, Response } from './client.ts';
import type { Target } from './targets.ts';
import type { TestS3 } from './s3.ts';

/** decisions.md "Limits": 10 MB per file, the servers' default. */
export const FILE_LIMIT = 10 * 1024 * 1024;
/** decisions.md "Files": 32 hex characters, `_`, the sanitised upload name. */
export const STORED_NAME = /^[0-9a-f]{32}_[A-Za-z0-9_.-]{1,128}$/;

/** A server under test, and a look at the store behind it that does not go through Basalt. */
export interface FileTarget extends Target {
  readonly storage: 'disk' | 's3';
  /** The bytes kept for a file of the app, or null when the store has none. */
  stored(app: AppClient, name: string): Promise<Buffer | null>;
  /** Every file the store keeps for the app (uploads in progress too), found through one file known to be there. */
  storedBeside(app: AppClient, knownName: string): Promise<string[]>;
  /** Writes a file into the app's folder of the store behind Basalt's back (beside a file known to be there). */
  plant(app: AppClient, knownName: string, name: string, bytes: Buffer): Promise<void>;
}

/**
 * The disk store of the servers scripts/test.ts starts: both keep their data directory under
 * TEST_SQLITE_DATA_DIR, files at `files/<namespace>/<name>` (the namespace is not part of the
 * API, so a file is found by its name, which no other file has).
 */
export function diskTarget(target: Target): FileTarget {
  const root = process.env.TEST_SQLITE_DATA_DIR;
  if (!root) throw new Error('TEST_SQLITE_DATA_DIR is not set: run the tests with `npm test`.');
  const find = (name: string) => walk(root).find((path) => basename(path) === name && basename(dirname(path)) !== '.meta') ?? null;
  return {
    ...target,
    storage: 'disk',
    stored: async (_app, name) => {
      const path = find(name);
      return path ? readFileSync(path) : null;
    },
    storedBeside: async (_app, knownName) => {
      const path = find(knownName);
      if (!path) throw new Error(`${knownName} is not on the disk`);
      const dir = dirname(path);
      const uploads = readdirSync(join(dir, '.uploads')).map((name) => `.uploads/${name}`);
      return [...readdirSync(dir).filter((name) => !name.startsWith('.')), ...uploads].sort();
    },
    plant: async (_app, knownName, name, bytes) => {
      const path = find(knownName);
      if (!path) throw new Error(`${knownName} is not on the disk`);
      writeFileSync(join(dirname(path), name), bytes);
    },
  };
}

/** A server that keeps its files in the bucket of `s3`, at `<prefix><applicationId>/<name>`. */
export function s3Target(target: Target, s3: TestS3, prefix: string): FileTarget {
  return {
    ...target,
    storage: 's3',
    stored: async (app, name) => (await s3.object(`${prefix}${app.app.applicationId}/${name}`))?.bytes ?? null,
    storedBeside: async (app) => {
      const folder = `${prefix}${app.app.applicationId}/`;
      return (await s3.keys(folder)).map((key) => key.slice(folder.length));
    },
    plant: (app, _knownName, name, bytes) => s3.put(`${prefix}${app.app.applicationId}/${name}`, bytes),
  };
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

export interface UploadOptions {
  /** The Content-Type header; none when omitted. */
  readonly contentType?: string;
  readonly key?: 'master' | 'rest' | 'client' | 'javascript' | 'windows' | 'none';
  readonly headers?: Record<string, string>;
}

/** POST /1/files/<name> with a raw body (the spec's form). `name` goes into the path as given. */
export function upload(app: AppClient, name: string, bytes: Buffer, options: UploadOptions = {}): Promise<Response> {
  const headers = { ...(options.contentType !== undefined ? { 'Content-Type': options.contentType } : {}), ...options.headers };
  return app.request('POST', `/1/files/${name}`, { raw: bytes, headers, key: options.key ?? 'rest' });
}

/** GET of a file URL with these headers; the body as bytes. */
export async function download(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, { method, headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** A body that arrives in parts, as `fetch` sends a stream: chunked, with no Content-Length. */
export function chunkedBody(bytes: Buffer, parts = 4): ReadableStream<Uint8Array> {
  const size = Math.ceil(bytes.length / parts) || 1;
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly body: any;
  /** Body bytes the socket had taken when the answer arrived. */
  readonly sentBeforeAnswer: number;
  /** Whether the client had finished its body (or given up) before the answer arrived. */
  readonly endedBeforeAnswer: boolean;
}

export interface RawRequest {
  readonly method: string;
  /** Sent exactly as written: fetch would resolve `..` and `%2e%2e` segments itself. */
  readonly path: string;
  readonly headers: Record<string, string>;
  /** Body bytes to send at most, in chunks of `chunk` bytes, each after the socket took the last. */
  readonly send?: number;
  readonly chunk?: number;
  /**
   * After `send` bytes: end the body (true), or leave it open and wait for the answer (false,
   * for a declared Content-Length larger than what is sent: a server that waits for the rest
   * never answers, and the test's timeout reports it).
   */
  readonly endAfterSend?: boolean;
}

/**
 * node:http, for what fetch cannot do: exact paths, and a body that stops being sent as soon as
 * the answer arrives. The answer is read whole; the connection is dropped afterwards.
 */
export function rawRequest(url: string, options: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let ended = false;
    let answered = false;
    const req = httpRequest({ host: hostname, port, method: options.method, path: options.path, headers: options.headers });
    req.on('response', (res) => {
      answered = true;
      const endedBeforeAnswer = ended;
      const sentBeforeAnswer = sent;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, sentBeforeAnswer, endedBeforeAnswer });
        req.destroy();
      });
    });
    // Once answered, a server that closes the connection on a body it will not read makes the
    // rest of the writes fail; that is the behaviour under test, not an error of the test.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const total = options.send ?? 0;
    const chunk = Buffer.alloc(Math.min(options.chunk ?? 1024 * 1024, Math.max(total, 1)), 0x61);
    void (async () => {
      while (sent < total && !answered) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        const written = await new Promise<boolean>((done) => req.write(part, (error) => done(!error)));
        if (!written) return;
        sent += part.length;
      }
      if (!answered && options.endAfterSend !== false) {
        ended = true;
        req.end();
      }
    })();
  });
}

/** The application id and a key header for rawRequest. */
export function keyHeaders(app: AppClient, key: 'rest' | 'master' = 'rest'): Record<string, string> {
  return key === 'master'
    ? { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-Master-Key': app.app.masterKey }
    : { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-REST-API-Key': app.app.restKey };
}
