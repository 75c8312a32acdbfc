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
}

/** An object as the API answers it: objectId, createdAt, updatedAt and the fields. */
export type ParseObject = Readonly<Record<string, unknown>> & { readonly objectId: string };

export type Where = Record<string, unknown>;
