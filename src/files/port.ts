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
  close(): Promise<void>;
}
