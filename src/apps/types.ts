export const KEY_NAMES = ['masterKey', 'restKey', 'clientKey', 'javascriptKey', 'windowsKey', 'webhookKey'] as const;
export type KeyName = (typeof KEY_NAMES)[number];
export type AppKeys = Readonly<Record<KeyName, string>>;

/** App settings of spec 2.11 and decisions.md; unknown settings are refused when written. */
export interface AppSettings {
  readonly clientClassCreationEnabled: boolean;
  readonly clientPushEnabled: boolean;
  readonly requireRevocableSessions: boolean;
  readonly revokeSessionOnPasswordChange: boolean;
  readonly [setting: string]: unknown;
}

export const DEFAULT_SETTINGS: AppSettings = Object.freeze({
  clientClassCreationEnabled: true,
  clientPushEnabled: false,
  requireRevocableSessions: true,
  revokeSessionOnPasswordChange: true,
});

export interface AppRecord {
  readonly applicationId: string;
  readonly appName: string;
  readonly namespace: string;
  readonly ownerId: string | null;
  readonly keys: AppKeys;
  readonly settings: AppSettings;
  readonly createdAt: string;
  readonly updatedAt: string;
}
