/**
 * A push's `data` as a WNS notification (docs/push-networks.md). The type is `data.wnsType` when
 * given (toast, tile, badge or raw); otherwise a toast when there is text to show, a badge when
 * there is only a badge, and raw (the JSON of `data`, for the app to read) when there is neither.
 */

export type WnsType = 'toast' | 'tile' | 'badge' | 'raw';

export interface WnsNotification {
  readonly type: WnsType;
  readonly contentType: string;
  readonly body: string;
}

const TYPES = new Set<WnsType>(['toast', 'tile', 'badge', 'raw']);

function xml(text: string): string {
  return text.replace(/[<>&'"]/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[char]!);
}

export function wnsNotification(data: Readonly<Record<string, unknown>>, badge: number | null): WnsNotification {
  const title = typeof data.title === 'string' ? data.title : null;
  const alert = typeof data.alert === 'string' ? data.alert : null;
  const count = badge ?? (typeof data.badge === 'number' ? data.badge : null);
  const requested = String(data.wnsType ?? '') as WnsType;
  const type: WnsType = TYPES.has(requested) ? requested : title !== null || alert !== null ? 'toast' : count !== null ? 'badge' : 'raw';
  const texts = [title, alert].filter((text): text is string => text !== null).map((text) => `<text>${xml(text)}</text>`).join('');
  switch (type) {
    case 'toast': {
      // The launch argument gives the app the whole payload (and `uri`) when the toast is tapped.
      const launch = xml(JSON.stringify(data));
      const sound = typeof data.sound === 'string' ? `<audio src="${xml(data.sound)}"/>` : '';
      return { type, contentType: 'text/xml', body: `<toast launch="${launch}"><visual><binding template="ToastGeneric">${texts}</binding></visual>${sound}</toast>` };
    }
    case 'tile':
      return { type, contentType: 'text/xml', body: `<tile><visual><binding template="TileMedium">${texts}</binding><binding template="TileWide">${texts}</binding></visual></tile>` };
    case 'badge':
      return { type, contentType: 'text/xml', body: `<badge value="${count !== null ? Math.max(0, Math.floor(count)) : 'none'}"/>` };
    case 'raw':
      return { type, contentType: 'application/octet-stream', body: JSON.stringify(data) };
  }
}
