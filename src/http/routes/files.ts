import { Readable, pipeline } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { deleteFile, downloadFile, listFiles, uploadFile, type Files, type UploadCommand } from '../../rest/files.ts';
import { runOnce } from '../../rest/idempotency.ts';
import type { RequestContext, Result } from '../../rest/context.ts';
import { SizeLimit } from '../../files/limit.ts';
import { declaredLength, parseJsonBody, registerRawBody, uploadContentType, uploadStream } from '../body.ts';
import { resolveContext } from '../context.ts';
import { readCredentials, svcHeader } from '../credentials.ts';
import { splitSdkFields } from '../sdk-body.ts';
import { send } from '../app-routes.ts';
import { discardRestOfBody } from '../rest-of-body.ts';
import type { HttpDeps } from '../deps.ts';

type NameParams = { Params: { name: string } };

/**
 * Spec 4.6 and decisions.md "Files": upload, list (docs/api.md) and delete under /1/files, and the file URLs under
 * /files/<applicationId>/<name>. Uploads live in a scope of their own whose bodies are streamed,
 * not parsed as JSON like every other request's.
 */
export function registerFileRoutes(app: FastifyInstance, deps: HttpDeps, files: Files): void {
  void app.register(async (scope) => {
    registerRawBody(scope);
    scope.post<NameParams>('/1/files/:name', (request, reply) => answerUpload(request, reply, () => upload(deps, files, request)));
    scope.post('/1/files', (request, reply) =>
      answerUpload(request, reply, async () => {
        throw Errors.invalidFileName('A file name is required: POST /1/files/<fileName>.');
      }),
    );
  });

  app.delete<NameParams>('/1/files/:name', async (request, reply) => {
    const { sdk } = splitSdkFields(request.body);
    const ctx = await resolveContext(deps, request, sdk);
    send(reply, await once(ctx, request, () => deleteFile(ctx, files, request.params.name)));
  });

  app.get('/1/files', async (request, reply) => {
    const ctx = await resolveContext(deps, request, {});
    send(reply, await listFiles(ctx, files, request.query as Record<string, unknown>));
  });

  // HEAD is declared with GET, not left to fastify's automatic HEAD routes: those answer a
  // bodiless reply with Content-Length 0 instead of the file's size.
  app.route<{ Params: { applicationId: string; name: string } }>({
    method: ['GET', 'HEAD'],
    url: '/files/:applicationId/:name',
    handler: async (request, reply) => {
      const record = await deps.apps.find(request.params.applicationId);
      if (!record) throw Errors.objectNotFound('No such file.');
      const result = await downloadFile(files, record, request.params.name, {
        range: header(request, 'range'),
        ifRange: header(request, 'if-range'),
        ifNoneMatch: header(request, 'if-none-match'),
        headOnly: request.method === 'HEAD',
      });
      // Returned, so that fastify waits for the stream instead of answering the resolved handler.
      return sendFile(reply, result);
    },
  });
}

/**
 * The Parse SDKs' JSON form of an upload (`{base64, _ContentType, _ApplicationId, …}` sent as
 * text/plain) carries its application id in the body, so a request whose headers name no app is
 * read as that form, as Parse Server does. Every other upload is the raw file: the spec's form,
 * and the JS SDK's `X-Parse-Upload-Mode: stream` uploads.
 */
async function upload(deps: HttpDeps, files: Files, request: FastifyRequest<NameParams>): Promise<Result> {
  if (!readCredentials(request.headers, {}).applicationId) return uploadSdkForm(deps, files, request);
  const ctx = await resolveContext(deps, request, {});
  const command: UploadCommand = { fileName: request.params.name, contentType: uploadContentType(request), body: uploadStream(request), size: declaredLength(request) };
  return once(ctx, request, () => uploadFile(ctx, files, command));
}

async function uploadSdkForm(deps: HttpDeps, files: Files, request: FastifyRequest<NameParams>): Promise<Result> {
  // base64 takes 4 characters for every 3 bytes; the JSON around it (keys, a session token,
  // the SDK's metadata and tags) may use up to the limit of an ordinary JSON body.
  const encodedLimit = Math.ceil(files.sizeLimit / 3) * 4 + deps.config.bodyLimit;
  const text = await readText(pipeline(uploadStream(request), new SizeLimit(encodedLimit, files.sizeLimit), () => {}));
  const json = parseSdkJson(text);
  const { sdk } = splitSdkFields(json);
  // Without an application id in the body either, this is a 401/902 like any other request.
  const ctx = await resolveContext(deps, request, sdk);
  if (sdk.method?.toUpperCase() === 'DELETE') return once(ctx, request, () => deleteFile(ctx, files, request.params.name));
  const { bytes, contentType } = decodeSdkFile(json);
  const command: UploadCommand = { fileName: request.params.name, contentType, body: Readable.from([bytes]), size: bytes.length };
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
async function once(ctx: RequestContext, request: FastifyRequest, run: () => Promise<Result>): Promise<Result> {
  const requestId = svcHeader(request.headers, 'request-id');
  return requestId === undefined ? run() : runOnce(ctx, requestId, run);
}

/**
 * An upload answered before its body was read to the end (a refusal, a file over the limit, a
 * repeated request id) has the rest of its body read and dropped up to a bound, or closes the
 * connection after the answer past it (rest-of-body.ts).
 */
async function answerUpload(request: FastifyRequest, reply: FastifyReply, run: () => Promise<Result>): Promise<void> {
  let result: Result;
  try {
    result = await run();
  } catch (error) {
    await discardRestOfBody(request, reply);
    throw error;
  }
  await discardRestOfBody(request, reply);
  send(reply, result);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendFile(reply: FastifyReply, result: Result): FastifyReply {
  if (result.headers) reply.headers(result.headers);
  reply.code(result.status);
  return result.body === null ? reply.send() : reply.send(result.body);
}
