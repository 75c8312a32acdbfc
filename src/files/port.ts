import type { Readable } from 'node:stream';

/**
 * Where one file lives. Adapters choose their own layout from it: the disk keeps files under the
 * app's namespace (a name that is always safe in a path), S3 under the application id, so that a
 * CDN in front of the bucket can serve `<filesURL>/<applicationId>/<name>` directly.
 */
export interface FileLocation {
  readonly applicationId: string;
  readonly namespace: string;
  /** A stored name (see names.ts), never a name straight from a request. */
  readonly name: string;
}

/** What is known of a stored file without reading it. */
export interface FileInfo {
  readonly size: number;
  readonly contentType: string;
  /** An opaque validator without quotes (the MD5 of the bytes on both adapters). */
  readonly etag: string;
}

export interface FileUpload {
  /** Ends with an error if the upload fails midway; adapters then store nothing. */
  readonly body: Readable;
  readonly contentType: string;
}

/** Inclusive byte offsets, already checked against the file's size. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** One file of a listing: its stored name, size, content type and when it was stored. */
export interface ListedFile {
  readonly name: string;
  readonly size: number;
  readonly contentType: string;
  /** ISO text; the file's modification time on disk, S3's LastModified. */
  readonly createdAt: string;
}

/** The app a listing is of (as FileLocation, without a name). */
export type FileFolder = Omit<FileLocation, 'name'>;

/**
 * The file store of a server: one adapter for every app. A body that fails while it is read (too
 * large, or the client went away) leaves nothing behind.
 */
export interface FileStorage {
  readonly kind: 'disk' | 's3';
  put(location: FileLocation, upload: FileUpload): Promise<FileInfo>;
  /** null when there is no such file. */
  stat(location: FileLocation): Promise<FileInfo | null>;
  /** The bytes, or those of `range`; null when the file is gone. */
  read(location: FileLocation, range: ByteRange | null): Promise<Readable | null>;
  /** false when there was no such file. */
  delete(location: FileLocation): Promise<boolean>;
  /**
   * At most `limit` of the app's stored files whose names sort after `after` (by code unit, which
   * for stored names, all ASCII, is S3's byte order), in that order: a keyset page.
   */
  list(folder: FileFolder, page: { readonly after: string; readonly limit: number }): Promise<ListedFile[]>;
  close(): Promise<void>;
}
