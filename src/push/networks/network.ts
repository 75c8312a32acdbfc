/**
 * The seam between the push pipeline (audience, `_PushStatus`, queue: src/push/*.ts) and the
 * delivery networks (src/push/networks/: APNs, FCM, WNS, Web Push). The pipeline hands a network
 * a page of devices and one message; the network answers one result per device.
 */

/** Which network delivers to an installation's `deviceType` (spec 2.8; decisions.md for "web"). */
export type NetworkName = 'apns' | 'fcm' | 'wns' | 'webpush';

/** One installation to deliver to, as read from `_Installation`. */
export interface PushDevice {
  /** The installation's objectId. */
  readonly objectId: string;
  readonly deviceType: string;
  /** APNs/FCM/WNS token, or for Web Push the JSON of the browser's PushSubscription. */
  readonly deviceToken: string;
  /** `gcm` with a `GCMSenderId`: the sender's own FCM credentials (decisions.md). */
  readonly pushType: string | null;
  readonly GCMSenderId: string | null;
  /** The app's bundle id on the device (APNs topic when the credential names none). */
  readonly appIdentifier: string | null;
  /** The badge to show, after `badge: "Increment"` was applied by the pipeline; null when not set. */
  readonly badge: number | null;
}

/** What to deliver: the push's `data` as the caller sent it, and when it stops being worth delivering. */
export interface PushMessage {
  readonly pushStatusId: string;
  /** alert, badge, sound, title, content-available, category, uri, action and custom keys (docs/push.md). */
  readonly data: Readonly<Record<string, unknown>>;
  /** Absolute expiry; null: none. Networks pass it on (apns-expiration, FCM ttl, Web Push TTL). */
  readonly expiresAt: Date | null;
}

export interface DeliveryResult {
  readonly objectId: string;
  readonly ok: boolean;
  /** Why it failed, for `_PushStatus.errorMessage` and the log. */
  readonly error?: string;
  /** The network says the token is no longer valid: the pipeline removes it from the installation. */
  readonly invalidToken?: boolean;
  /** The network was busy or failing (429, 5xx, a lost connection): the same send may succeed later. */
  readonly retryable?: boolean;
  /** How long the network asked to wait (its Retry-After), in milliseconds, when it said. */
  readonly retryAfterMs?: number;
}

/** A delivery network with one app's credentials bound. */
export interface PushNetwork {
  readonly name: NetworkName;
  /** Sends one message to each device (devices of this network only); never throws for one device's failure. */
  send(devices: readonly PushDevice[], message: PushMessage): Promise<DeliveryResult[]>;
  /** Releases connections (HTTP/2 sessions). */
  close(): Promise<void>;
}
