/**
 * A push's `data` as APNs wants it (docs/push-networks.md): the keys iOS knows go into `aps`,
 * every other key stays at the top level for the app to read, and a few keys steer the request
 * headers instead of the payload.
 */

export interface ApnsRequest {
  readonly payload: Record<string, unknown>;
  readonly pushType: string;
  readonly priority: string;
  readonly collapseId: string | null;
}

const PUSH_TYPES = new Set(['alert', 'background', 'voip', 'complication', 'fileprovider', 'mdm', 'location', 'liveactivity', 'pushtotalk', 'widgets']);

/** Keys that become `aps` fields under the same name. */
const APS_KEYS = ['sound', 'category', 'thread-id', 'interruption-level', 'relevance-score', 'target-content-id', 'filter-criteria', 'stale-date', 'content-state', 'timestamp', 'event', 'dismissal-date'];
/** Keys that go into `aps.alert` when any alert part is given. */
const ALERT_PARTS = ['title', 'subtitle', 'launch-image', 'title-loc-key', 'title-loc-args', 'subtitle-loc-key', 'subtitle-loc-args', 'loc-key', 'loc-args'];
/** Keys read for the headers, not sent. */
const HEADER_KEYS = ['push_type', 'pushType', 'priority', 'collapse_id', 'collapseId', 'apns-collapse-id'];
const FLAGS = ['content-available', 'mutable-content'];

const truthy = (value: unknown) => value === true || value === 1 || value === '1' || value === 'true';

export function apnsRequest(data: Readonly<Record<string, unknown>>, badge: number | null): ApnsRequest {
  const aps: Record<string, unknown> = {};
  const payload: Record<string, unknown> = {};
  const alert: Record<string, unknown> = typeof data.alert === 'object' && data.alert !== null && !Array.isArray(data.alert) ? { ...data.alert } : {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined || key === 'aps') continue;
    if (key === 'alert') {
      if (typeof value === 'string') alert.body = value;
    } else if (ALERT_PARTS.includes(key)) alert[key] = value;
    else if (key === 'threadId') aps['thread-id'] = value;
    else if (APS_KEYS.includes(key)) aps[key] = value;
    else if (FLAGS.includes(key)) {
      if (truthy(value)) aps[key] = 1;
    } else if (key === 'badge') {
      // "Increment" was turned into each installation's new badge by the pipeline.
      if (badge === null && typeof value === 'number') aps.badge = value;
    } else if (!HEADER_KEYS.includes(key)) payload[key] = value;
  }
  if (badge !== null) aps.badge = badge;
  // The plain form for a plain text alert, as Parse Server sends it.
  const alertKeys = Object.keys(alert);
  if (alertKeys.length === 1 && alertKeys[0] === 'body') aps.alert = alert.body;
  else if (alertKeys.length > 0) aps.alert = alert;
  // A payload object of the caller's own `aps` fills in what the mapping left out.
  if (typeof data.aps === 'object' && data.aps !== null) for (const [key, value] of Object.entries(data.aps)) if (!(key in aps)) aps[key] = value;

  const visible = aps.alert !== undefined || aps.sound !== undefined || aps.badge !== undefined;
  const requested = String(data.push_type ?? data.pushType ?? '');
  const pushType = PUSH_TYPES.has(requested) ? requested : !visible && aps['content-available'] === 1 ? 'background' : 'alert';
  // Apple refuses priority 10 for background pushes.
  const priority = ['1', '5', '10'].includes(String(data.priority)) ? String(data.priority) : pushType === 'background' ? '5' : '10';
  const collapse = data.collapse_id ?? data.collapseId ?? data['apns-collapse-id'];
  return { payload: { ...payload, aps }, pushType, priority, collapseId: typeof collapse === 'string' && collapse !== '' ? collapse.slice(0, 64) : null };
}
