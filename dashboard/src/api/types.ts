/** The wire shapes the dashboard reads (docs/api.md). */

export const KEY_NAMES = ['masterKey', 'restKey', 'clientKey', 'javascriptKey', 'windowsKey', 'webhookKey'] as const;
export type KeyName = (typeof KEY_NAMES)[number];

export interface App {
  readonly appName: string;
  readonly applicationId: string;
  readonly dashboardURL: string;
  readonly [setting: string]: unknown;
}

export type FieldType = 'String' | 'Number' | 'Boolean' | 'Date' | 'Object' | 'Array' | 'GeoPoint' | 'File' | 'Pointer' | 'Relation' | 'Bytes' | 'Polygon' | 'ACL';

export interface FieldSchema {
  readonly type: FieldType;
  readonly targetClass?: string;
}

export interface ClassSchema {
  readonly className: string;
  readonly fields: Readonly<Record<string, FieldSchema>>;
  readonly classLevelPermissions?: Readonly<Record<string, unknown>>;
  /** Index name → keys, each field 1, -1 or "text" (docs/api.md "Schemas"). */
  readonly indexes?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** One entry of GET /1/scans: the index that would serve a scanning query, or null. */
export interface ScanEntry {
  readonly className: string;
  readonly index: Readonly<Record<string, 1 | -1 | 'text'>> | null;
  readonly count: number;
  readonly lastSeenAt: string;
}

/** An object as the API answers it: objectId, createdAt, updatedAt and the fields. */
export type ParseObject = Readonly<Record<string, unknown>> & { readonly objectId: string };

export type Where = Record<string, unknown>;

/** One file of GET /1/files. */
export interface StoredFile {
  readonly name: string;
  readonly url: string;
  readonly size: number;
  readonly contentType: string;
  readonly createdAt?: string;
}

/** One mail of GET /1/outbox. */
export interface OutboxMail {
  readonly objectId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
  readonly status: 'unsent' | 'failed';
  readonly error?: string;
  readonly createdAt: string;
}
