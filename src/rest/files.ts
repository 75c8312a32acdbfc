import { pipeline, type Readable } from 'node:stream';
import { ApiError, CATALOG, Errors, isApiError } from '../errors/index.ts';
import { fileUploadOf } from '../apps/settings.ts';
import type { AppRecord } from '../apps/types.ts';
import type { FileInfo, FileLocation, FileStorage } from '../files/port.ts';
import { newStoredName } from '../files/names.ts';
import { contentTypeFor, isActiveContent } from '../files/content-type.ts';
import { fileTooLarge, SizeLimit } from '../files/limit.ts';
import { parseRange } from '../files/range.ts';
import { parseLimit } from './find.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { fileUrl } from './render.ts';
import { FILE_CLASS } from './request-triggers.ts';
import { callerFields } from './trigger-caller.ts';

/** The file store and the upload limit of this server (spec 8: 10 MB unless configured). */
export interface Files {
  readonly storage: FileStorage;
  readonly sizeLimit: number;
}

export interface UploadCommand {
  /** The name from the URL, decoded; sanitised here. */
  readonly fileName: string;
  readonly contentType: string | undefined;
  readonly body: Readable;
  /** The declared byte count, or null for a chunked body. */
  readonly size: number | null;
}

function locate(app: AppRecord, name: string): FileLocation {
  return { applicationId: app.applicationId, namespace: app.namespace, name };
}

/**
 * POST /1/files/<fileName> (spec 4.6): 201, Location = the file's URL, `{url, name}`. A
 * declared size over the limit is refused before a byte is read; an undeclared one is counted
 * and cut off at the limit.
 */
export async function uploadFile(ctx: RequestContext, files: Files, command: UploadCommand): Promise<Result> {
  await checkUploadAllowed(ctx);
  const name = newStoredName(command.fileName);
  const contentType = contentTypeFor(command.contentType, command.fileName);
  if (command.size !== null && command.size > files.sizeLimit) throw fileTooLarge(files.sizeLimit);
  // Cloud code's beforeSaveFile may refuse the upload before a byte is read. It sees the name
  // the client gave and the declared size; the bytes stream to the store, so it cannot replace them.
  const triggers = ctx.app.hooks.requests;
  const before = triggers.of('beforeSaveFile', FILE_CLASS);
  if (before) await before({ className: FILE_CLASS, file: { name: command.fileName, contentType }, fileSize: command.size, ...callerFields(ctx) });
  // The callback only swallows the error here: pipeline hands it on to `body`, whose reader fails.
  const body = pipeline(command.body, new SizeLimit(files.sizeLimit), () => {});
  try {
    await files.storage.put(locate(ctx.app.record, name), { body, contentType });
  } catch (error) {
    if (isApiError(error)) throw error;
    ctx.log.error({ err: error, file: name }, 'file storage failed to save a file');
    throw new ApiError(CATALOG.fileSaveError, 'The file could not be saved.', 500);
  }
  const url = fileUrl(ctx, name);
  const after = triggers.of('afterSaveFile', FILE_CLASS);
  // The file is stored: a failing afterSaveFile is logged (cloud code's log), never answered.
  if (after) await after({ className: FILE_CLASS, file: { name, url, contentType }, fileSize: command.size, ...callerFields(ctx) }).catch(() => {});
  return ok({ url, name }, 201, { Location: url });
}

/**
 * decisions.md "Files" and Parse Server's `fileUpload`: the master key may always upload; other
 * callers as the app allows public callers, anonymous users and other users. 403/119 otherwise.
 */
async function checkUploadAllowed(ctx: RequestContext): Promise<void> {
  if (ctx.auth.isMaster) return;
  const policy = fileUploadOf(ctx.app.record.settings);
  const userId = ctx.auth.userId;
  if (!userId) {
    if (!policy.public) throw Errors.operationForbidden('This app does not accept file uploads without a user session.');
    return;
  }
  // The user is read only when anonymous and other users are treated differently.
  const anonymous = policy.anonymousUser !== policy.authenticatedUser && (await isAnonymousUser(ctx, userId));
  if (anonymous ? !policy.anonymousUser : !policy.authenticatedUser) {
    throw Errors.operationForbidden(`This app does not accept file uploads from ${anonymous ? 'anonymous ' : ''}users.`);
  }
}

async function isAnonymousUser(ctx: RequestContext, userId: string): Promise<boolean> {
  const user = await ctx.app.store.get('_User', userId, null);
  const authData = user?.data.authData;
  return typeof authData === 'object' && authData !== null && (authData as Record<string, unknown>).anonymous != null;
}

/**
 * DELETE /1/files/<name> (spec 4.6, 5): the master key only (403/119 for other keys); 200 `{}`,
 * 404/101 when there is no such file. Objects that refer to the file are left as they are.
 */
export async function deleteFile(ctx: RequestContext, files: Files, name: string): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Deleting a file requires the master key.');
  const triggers = ctx.app.hooks.requests;
  const file = { name, url: fileUrl(ctx, name) };
  const before = triggers.of('beforeDeleteFile', FILE_CLASS);
  if (before) await before({ className: FILE_CLASS, file, ...callerFields(ctx) });
  let removed: boolean;
  try {
    removed = await files.storage.delete(locate(ctx.app.record, name));
  } catch (error) {
    ctx.log.error({ err: error, file: name }, 'file storage failed to delete a file');
    throw new ApiError(CATALOG.fileDeleteError, 'The file could not be deleted.', 500);
  }
  if (!removed) throw Errors.objectNotFound(`No file named ${JSON.stringify(name.slice(0, 200))}.`);
  const after = triggers.of('afterDeleteFile', FILE_CLASS);
  if (after) await after({ className: FILE_CLASS, file, ...callerFields(ctx) }).catch(() => {});
  return ok({});
}

/** The longest `after` a listing takes: a stored name is at most 32 + 1 + 128 characters. */
const MAX_CURSOR = 161;

/**
 * GET /1/files?limit&after (docs/api.md "Listing files"): the master key only (403/119); the
 * app's stored files sorted by name, `limit` of them (default 100, at most 1000) after the name
 * `after`, each `{name, url, size, contentType, createdAt}`; `next`, the `after` of the next
 * page, is there only when more files follow. A keyset page: the store never counts or skips.
 */
export async function listFiles(ctx: RequestContext, files: Files, query: Readonly<Record<string, unknown>>): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Listing files requires the master key.');
  const limit = parseLimit(query.limit);
  const after = query.after ?? '';
  if (typeof after !== 'string' || after.length > MAX_CURSOR) throw Errors.invalidQuery(`after must be one file name of at most ${MAX_CURSOR} characters.`);
  const folder = { applicationId: ctx.app.record.applicationId, namespace: ctx.app.record.namespace };
  let listed;
  try {
    // One more than the page tells whether another page follows.
    listed = await files.storage.list(folder, { after, limit: limit === 0 ? 0 : limit + 1 });
  } catch (error) {
    ctx.log.error({ err: error }, 'file storage failed to list files');
    throw new ApiError(CATALOG.internalServerError, 'The files could not be listed.', 500);
  }
  const page = listed.slice(0, limit);
  const results = page.map((file) => ({ name: file.name, url: fileUrl(ctx, file.name), size: file.size, contentType: file.contentType, createdAt: file.createdAt }));
  return ok(listed.length > limit ? { results, next: page.at(-1)!.name } : { results });
}

/** The request headers that shape a download. */
export interface DownloadRequest {
  readonly range: string | undefined;
  readonly ifRange: string | undefined;
  readonly ifNoneMatch: string | undefined;
  /** HEAD: the headers of a GET, without the bytes. */
  readonly headOnly: boolean;
}

/**
 * GET {file_url}/<applicationId>/<name> (decisions.md "Files"): the bytes with their stored
 * content type, Content-Length and ETag; one byte range (206, or 416 when it lies past the end);
 * 304 for a matching If-None-Match. No key is needed: the random part of a name is what keeps a
 * file private, as in Parse. The body of the Result is a stream, or null.
 */
export async function downloadFile(files: Files, app: AppRecord, name: string, request: DownloadRequest): Promise<Result> {
  const location = locate(app, name);
  const info = await files.storage.stat(location);
  if (!info) throw missingFile(name);
  const headers: Record<string, string> = { ETag: `"${info.etag}"`, 'Accept-Ranges': 'bytes' };
  if (request.ifNoneMatch !== undefined && etagListMatches(request.ifNoneMatch, info.etag)) return { status: 304, body: null, headers };

  // If-Range: a range of an older version of the file would splice two versions together.
  const rangeApplies = request.range !== undefined && (request.ifRange === undefined || request.ifRange.trim() === `"${info.etag}"`);
  const range = rangeApplies ? parseRange(request.range!, info.size) : null;
  if (range === 'unsatisfiable') return { status: 416, body: null, headers: { ...headers, 'Content-Range': `bytes */${info.size}`, 'Content-Length': '0' } };
  Object.assign(headers, contentHeaders(info));
  const length = range ? range.end - range.start + 1 : info.size;
  headers['Content-Length'] = String(length);
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${info.size}`;
  const status = range ? 206 : 200;
  if (request.headOnly || length === 0) return { status, body: null, headers };
  const body = await files.storage.read(location, range);
  if (!body) throw missingFile(name);
  return { status, body, headers };
}

function missingFile(name: string): ApiError {
  return Errors.objectNotFound(`No file named ${JSON.stringify(name.slice(0, 200))}.`);
}

function contentHeaders(info: FileInfo): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': info.contentType, 'X-Content-Type-Options': 'nosniff' };
  if (isActiveContent(info.contentType)) headers['Content-Security-Policy'] = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";
  return headers;
}

/** RFC 9110 13.1.2: `*`, or one of the listed tags compared weakly (a W/ prefix is ignored). */
function etagListMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((item) => item.trim().replace(/^W\//, '') === `"${etag}"`);
}
