/**
 * A push's `data` as an FCM HTTP v1 message (docs/push-networks.md). `message.data` carries every
 * key as a string (FCM takes strings only) and, for the Parse Android SDK, the whole payload as
 * JSON under `data` with `push_id` and `time`; `alert` and `title` also make a notification the
 * system shows.
 */

export interface FcmMessageBody {
  readonly message: Record<string, unknown>;
}

const asString = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function fcmMessage(token: string, data: Readonly<Record<string, unknown>>, badge: number | null, pushStatusId: string, ttlSeconds: number | null, sentAt: Date): FcmMessageBody {
  const strings: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) if (value !== undefined) strings[key] = asString(value);
  // The Parse Android SDK reads these three (ParsePushBroadcastReceiver's "com.parse.Data").
  strings.data = JSON.stringify(data);
  strings.push_id = pushStatusId;
  strings.time = sentAt.toISOString();

  const notification: Record<string, string> = {};
  if (typeof data.title === 'string') notification.title = data.title;
  if (typeof data.alert === 'string') notification.body = data.alert;
  const androidNotification: Record<string, unknown> = {};
  if (typeof data.sound === 'string') androidNotification.sound = data.sound;
  if (typeof data.action === 'string') androidNotification.click_action = data.action;
  // The installation's badge after "Increment", else a number given.
  const count = badge ?? (typeof data.badge === 'number' && Number.isInteger(data.badge) ? data.badge : null);
  if (count !== null) androidNotification.notification_count = count;

  const visible = Object.keys(notification).length > 0;
  const android: Record<string, unknown> = { priority: visible || data['content-available'] === undefined ? 'high' : 'normal' };
  // FCM keeps a message at most four weeks.
  if (ttlSeconds !== null) android.ttl = `${Math.min(ttlSeconds, 28 * 86_400)}s`;
  const collapse = data.collapse_key ?? data.collapseKey;
  if (typeof collapse === 'string' && collapse !== '') android.collapse_key = collapse;
  if (visible && Object.keys(androidNotification).length > 0) android.notification = androidNotification;
  return { message: { token, data: strings, ...(visible ? { notification } : {}), android } };
}
