import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, opendir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_CONTENT_TYPE } from './content-type.ts';
import { isStoredName } from './names.ts';
import type { ByteRange, FileFolder, FileInfo, FileLocation, FileStorage, FileUpload, ListedFile } from './port.ts';

/**
 * Files on the local disk, for a single machine:
 *
 *   <root>/<namespace>/<name>              the bytes as uploaded
 *   <root>/<namespace>/.meta/<name>.json   content type and MD5
 *   <root>/<namespace>/.uploads/…          uploads in progress
 *
 * Stored names start with hex digits, so they never clash with the dot folders. An upload is
 * written to .uploads, flushed, and renamed into place only when complete: a reader sees the
 * whole file or none, and a failed upload leaves nothing under its name.
 */
export class DiskFileStorage implements FileStorage {
  readonly kind = 'disk';

  constructor(private readonly root: string) {}

  async put(location: FileLocation, upload: FileUpload): Promise<FileInfo> {
    const { data, meta } = this.paths(location);
    const dir = join(this.root, location.namespace);
    const uploads = join(dir, '.uploads');
    await mkdir(uploads, { recursive: true });
    await mkdir(join(dir, '.meta'), { recursive: true });
    const partial = join(uploads, randomBytes(12).toString('hex'));
    const hash = createHash('md5');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      // flush: the bytes reach the disk before the rename makes them visible, so a crash
      // cannot leave an acknowledged file empty.
      await pipeline(upload.body, meter, createWriteStream(partial, { flags: 'wx', flush: true }));
      const info: FileInfo = { size, contentType: upload.contentType, etag: hash.digest('hex') };
      await writeFile(meta, JSON.stringify({ contentType: info.contentType, etag: info.etag }), { flush: true });
      await rename(partial, data);
      return info;
    } catch (error) {
      await Promise.all([rm(partial, { force: true }), rm(meta, { force: true })]);
      throw error;
    }
  }

  async stat(location: FileLocation): Promise<FileInfo | null> {
    if (!isStoredName(location.name)) return null;
    const { data, meta } = this.paths(location);
    const found = await stat(data).catch(notFoundAsNull);
    if (!found) return null;
    const saved = await readMeta(meta);
    return {
      size: found.size,
      contentType: saved.contentType ?? DEFAULT_CONTENT_TYPE,
      // A file copied in by hand has no .meta: size and time still change with its content.
      etag: saved.etag ?? `${found.size.toString(16)}-${Math.floor(found.mtimeMs).toString(16)}`,
    };
  }

  async read(location: FileLocation, range: ByteRange | null): Promise<Readable | null> {
    if (!isStoredName(location.name)) return null;
    // Opened before the response starts, so a file deleted in between is a 404, not a broken body.
    const handle = await open(this.paths(location).data, 'r').catch(notFoundAsNull);
    if (!handle) return null;
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(location: FileLocation): Promise<boolean> {
    if (!isStoredName(location.name)) return false;
    const { data, meta } = this.paths(location);
    const removed = await unlink(data).then(() => true, (error: unknown) => notFoundAsNull(error) ?? false);
    await rm(meta, { force: true });
    return removed;
  }

  async list(folder: FileFolder, page: { readonly after: string; readonly limit: number }): Promise<ListedFile[]> {
    if (page.limit <= 0) return [];
    const names = await smallestNamesAfter(this.folderOf(folder), page.after, page.limit);
    const listed = await Promise.all(names.map((name) => this.listed({ ...folder, name })));
    // A file deleted between the directory read and its stat is left out of the page.
    return listed.filter((file): file is ListedFile => file !== null);
  }

  async close(): Promise<void> {}

  private async listed(location: FileLocation): Promise<ListedFile | null> {
    const { data, meta } = this.paths(location);
    const found = await stat(data).catch(notFoundAsNull);
    if (!found) return null;
    const saved = await readMeta(meta);
    return { name: location.name, size: found.size, contentType: saved.contentType ?? DEFAULT_CONTENT_TYPE, createdAt: found.mtime.toISOString() };
  }

  private folderOf(folder: FileFolder): string {
    if (!/^[0-9a-f]+$/.test(folder.namespace)) throw new Error(`unsafe file folder ${folder.namespace}`);
    return join(this.root, folder.namespace);
  }

  private paths(location: FileLocation): { data: string; meta: string } {
    // isStoredName is checked by every caller: no separator or dot segment gets this far.
    if (!isStoredName(location.name) || !/^[0-9a-f]+$/.test(location.namespace)) throw new Error(`unsafe file location ${location.namespace}/${location.name}`);
    const dir = join(this.root, location.namespace);
    return { data: join(dir, location.name), meta: join(dir, '.meta', `${location.name}.json`) };
  }
}

/**
 * The `limit` smallest stored names after `after` in a folder, read entry by entry (opendir), so
 * memory holds one page of names however many files the app has; the time is one pass over the
 * folder per page.
 */
async function smallestNamesAfter(dir: string, after: string, limit: number): Promise<string[]> {
  const dirHandle = await opendir(dir).catch(notFoundAsNull);
  if (!dirHandle) return [];
  const kept: string[] = [];
  for await (const entry of dirHandle) {
    const name = entry.name;
    if (!entry.isFile() || !isStoredName(name) || name <= after) continue;
    if (kept.length === limit && name >= kept[limit - 1]!) continue;
    kept.splice(insertionPoint(kept, name), 0, name);
    if (kept.length > limit) kept.pop();
  }
  return kept;
}

function insertionPoint(sorted: readonly string[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < name) low = middle + 1;
    else high = middle;
  }
  return low;
}

function notFoundAsNull(error: unknown): null {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  throw error;
}

async function readMeta(path: string): Promise<{ contentType?: string; etag?: string }> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return {};
    const { contentType, etag } = parsed as Record<string, unknown>;
    return { ...(typeof contentType === 'string' ? { contentType } : {}), ...(typeof etag === 'string' ? { etag } : {}) };
  } catch {
    return {};
  }
}
