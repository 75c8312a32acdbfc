import { Readable, pipeline } from 'node:stream';
import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { deleteFile, downloadFile, listFiles, uploadFile, type Files, type UploadCommand } from '../../rest/files.ts';
import { runOnce } from '../../rest/idempotency.ts';
import type { RequestContext, Result } from '../../rest/context.ts';
import { SizeLimit } from '../../files/limit.ts';
import { parseJsonBody, uploadStream } from '../body.ts';
import { declaredLength } from '../edge/body.ts';
import { resolveContext } from '../context.ts';
import { readCredentials, svcHeader } from '../credentials.ts';
import { splitSdkFields } from '../sdk-body.ts';
import type { HttpDeps } from '../deps.ts';
import type { Answer, EdgeRoute } from '../edge/types.ts';
import type { EdgeRequest } from '../edge/request.ts';

/**
 * Spec 4.6 and decisions.md "Files": upload, list (docs/api.md) and delete under /1/files, and the file URLs under
 * /files/<applicationId>/<name>. Upload bodies are streamed to the file store ('raw'), not read
 * as JSON like every other request's; what an upload answered before its end still sends is
 * read and dropped by the edge (edge/body.ts, discardRest).
 */
export function fileRoutes(deps: HttpDeps, files: Files): EdgeRoute[] {
  const remove = async (request: EdgeRequest): Promise<Answer> => {
    const { sdk } = splitSdkFields(request.body);
    const ctx = await resolveContext(deps, request, sdk);
    return once(ctx, request, () => deleteFile(ctx, files, request.params.name!));
  };
  const download = async (request: EdgeRequest): Promise<Answer> => {
    const record = await deps.apps.find(request.params.applicationId!);
    if (!record) throw Errors.objectNotFound('No such file.');
    return downloadFile(files, record, request.params.name!, {
      range: request.header('range'),
      ifRange: request.header('if-range'),
      ifNoneMatch: request.header('if-none-match'),
      headOnly: request.method === 'HEAD',
    });
  };
  return [
    { method: 'POST', path: '/1/files/:name', body: 'raw', handler: (request) => upload(deps, files, request) },
    {
      method: 'POST',
      path: '/1/files',
      body: 'raw',
      handler: () => {
        throw Errors.invalidFileName('A file name is required: POST /1/files/<fileName>.');
      },
    },
    {
      method: 'GET',
      path: '/1/files',
      handler: async (request) => listFiles(await resolveContext(deps, request, {}), files, request.query as Record<string, unknown>),
    },
    { method: 'DELETE', path: '/1/files/:name', handler: remove },
    { method: 'GET', path: '/files/:applicationId/:name', handler: download },
    // HEAD is its own route, not the GET's answer without its body: downloadFile then opens no
    // stream, and the answer carries the file's size.
    { method: 'HEAD', path: '/files/:applicationId/:name', handler: download },
  ];
}

/**
 * The Parse SDKs' JSON form of an upload (`{base64, _ContentType, _ApplicationId, …}` sent as
 * text/plain) carries its application id in the body, so a request whose headers name no app is
 * read as that form, as Parse Server does. Every other upload is the raw file: the spec's form,
 * and the JS SDK's `X-Parse-Upload-Mode: stream` uploads.
 */
async function upload(deps: HttpDeps, files: Files, request: EdgeRequest): Promise<Result> {
  if (!readCredentials(request.headers, {}).applicationId) return uploadSdkForm(deps, files, request);
  const ctx = await resolveContext(deps, request, {});
  const command: UploadCommand = { fileName: request.params.name!, contentType: request.header('content-type'), body: uploadStream(request.raw), size: declaredLength(request.raw) };
  return once(ctx, request, () => uploadFile(ctx, files, command));
}

async function uploadSdkForm(deps: HttpDeps, files: Files, request: EdgeRequest): Promise<Result> {
  // base64 takes 4 characters for every 3 bytes; the JSON around it (keys, a session token,
  // the SDK's metadata and tags) may use up to the limit of an ordinary JSON body.
  const encodedLimit = Math.ceil(files.sizeLimit / 3) * 4 + deps.config.bodyLimit;
  const text = await readText(pipeline(uploadStream(request.raw), new SizeLimit(encodedLimit, files.sizeLimit), () => {}));
  const json = parseSdkJson(text);
  const { sdk } = splitSdkFields(json);
  // Without an application id in the body either, this is a 401/902 like any other request.
  const ctx = await resolveContext(deps, request, sdk);
  if (sdk.method?.toUpperCase() === 'DELETE') return once(ctx, request, () => deleteFile(ctx, files, request.params.name!));
  const { bytes, contentType } = decodeSdkFile(json);
  const command: UploadCommand = { fileName: request.params.name!, contentType, body: Readable.from([bytes]), size: bytes.length };
  return once(ctx, request, () => uploadFile(ctx, files, command));
}

/** A body that is not JSON names no app: resolveContext then answers 401/902. */
function parseSdkJson(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let json: unknown;
  try {
    json = parseJsonBody(text);
  } catch {
    return {};
  }
  return isPlainObject(json) ? json : {};
}

const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** `base64` (plain, or a data: URL as browsers produce) and `_ContentType` of the SDK form. */
function decodeSdkFile(json: Record<string, unknown>): { bytes: Buffer; contentType: string | undefined } {
  if (typeof json.base64 !== 'string') throw Errors.invalidJson('A file upload in the JSON form needs a "base64" string.');
  let data = json.base64;
  let contentType = typeof json._ContentType === 'string' ? json._ContentType : undefined;
  const dataUrl = DATA_URL.exec(data);
  if (dataUrl) {
    contentType ??= dataUrl[1] || undefined;
    data = data.slice(dataUrl[0].length);
  }
  data = data.replace(/\s+/g, '');
  // Buffer.from skips characters outside the alphabet silently; such data is refused instead.
  if (!BASE64.test(data) || data.length % 4 === 1) throw Errors.invalidJson('"base64" must hold base64-encoded bytes.');
  return { bytes: Buffer.from(data, 'base64'), contentType };
}

async function readText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** X-Svc-Request-Id as on every write (the replay keeps the Location header). */
async function once(ctx: RequestContext, request: EdgeRequest, run: () => Promise<Result>): Promise<Result> {
  const requestId = svcHeader(request.headers, 'request-id');
  return requestId === undefined ? run() : runOnce(ctx, requestId, run);
}
