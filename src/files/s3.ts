import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DEFAULT_CONTENT_TYPE } from './content-type.ts';
import { isStoredName } from './names.ts';
import type { ByteRange, FileFolder, FileInfo, FileLocation, FileStorage, FileUpload, ListedFile } from './port.ts';

export interface S3Settings {
  readonly bucket: string;
  readonly region: string;
  readonly endpoint?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly forcePathStyle: boolean;
  readonly prefix: string;
}

/**
 * Files in an S3-compatible bucket, through the AWS SDK, at `<prefix><applicationId>/<name>`:
 * the same path a file URL ends with, so a CDN or a public bucket can serve the URLs of the
 * `filesURL` setting without Basalt. Content type and ETag are S3's own object metadata.
 */
export class S3FileStorage implements FileStorage {
  readonly kind = 's3';
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: { ...settings.credentials } } : {}),
      // By default the SDK adds CRC32 checksums in aws-chunked trailers, which a number of
      // S3-compatible services do not accept. They are sent only where S3 requires them;
      // uploads carry a Content-MD5 instead (see put).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(location: FileLocation, upload: FileUpload): Promise<FileInfo> {
    // The whole body is gathered before the PUT (at most the file size limit: the caller's
    // SizeLimit ends it there). A streamed PUT cannot be retried by the SDK, and when the client
    // goes away midway some S3-compatible stores keep the truncated object; a buffer with its
    // Content-MD5 is retried on transient errors and stored whole or not at all.
    const body = await collect(upload.body);
    const result = await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.key(location),
        Body: body,
        ContentLength: body.length,
        ContentMD5: createHash('md5').update(body).digest('base64'),
        ContentType: upload.contentType,
      }),
    );
    return { size: body.length, contentType: upload.contentType, etag: unquote(result.ETag ?? '') };
  }

  async stat(location: FileLocation): Promise<FileInfo | null> {
    if (!isStoredName(location.name)) return null;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.key(location) }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType || DEFAULT_CONTENT_TYPE, etag: unquote(head.ETag ?? '') };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async read(location: FileLocation, range: ByteRange | null): Promise<Readable | null> {
    if (!isStoredName(location.name)) return null;
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(location), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      // In Node the SDK's body is the HTTP response stream itself.
      return object.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(location: FileLocation): Promise<boolean> {
    // DeleteObject succeeds for a missing key as well; the HEAD tells the caller whether a file was there.
    if (!(await this.stat(location))) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(location) }));
    return true;
  }

  /**
   * ListObjectsV2 under the app's folder from `after` on (S3 lists keys in byte order). A listing
   * carries no content type, so each file listed is asked for it with a HEAD, a few at a time.
   */
  async list(folder: FileFolder, page: { readonly after: string; readonly limit: number }): Promise<ListedFile[]> {
    const folderKey = this.key({ ...folder, name: '' });
    const found: { name: string; size: number; lastModified: Date | undefined }[] = [];
    let continuation: string | undefined;
    while (found.length < page.limit) {
      const listed = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.settings.bucket,
          Prefix: folderKey,
          MaxKeys: Math.min(1000, page.limit - found.length),
          ...(continuation ? { ContinuationToken: continuation } : page.after ? { StartAfter: folderKey + page.after } : {}),
        }),
      );
      for (const object of listed.Contents ?? []) {
        const name = (object.Key ?? '').slice(folderKey.length);
        // Keys written by something else than Basalt (a nested path, another layout) are not its files.
        if (isStoredName(name)) found.push({ name, size: object.Size ?? 0, lastModified: object.LastModified });
      }
      if (!listed.IsTruncated || !listed.NextContinuationToken) break;
      continuation = listed.NextContinuationToken;
    }
    const files: (ListedFile | null)[] = [];
    for (let start = 0; start < found.length; start += HEADS_AT_ONCE) {
      files.push(...(await Promise.all(found.slice(start, start + HEADS_AT_ONCE).map((file) => this.withType(folder, file)))));
    }
    return files.filter((file): file is ListedFile => file !== null);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** The listed file with its stored content type; null when it was deleted since the listing. */
  private async withType(folder: FileFolder, file: { name: string; size: number; lastModified: Date | undefined }): Promise<ListedFile | null> {
    const info = await this.stat({ ...folder, name: file.name });
    if (!info) return null;
    return { name: file.name, size: file.size, contentType: info.contentType, createdAt: (file.lastModified ?? new Date(0)).toISOString() };
  }

  private key(location: FileLocation): string {
    return `${this.settings.prefix}${location.applicationId}/${location.name}`;
  }
}

/** HEAD requests of one listing in flight together. */
const HEADS_AT_ONCE = 16;

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function unquote(etag: string): string {
  return etag.replace(/^"|"$/g, '');
}

function isNotFound(error: unknown): boolean {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
}
