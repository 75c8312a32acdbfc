import type { Where } from '../../api/types.ts';

/** The device types the server accepts (docs/api.md "Installations"), for the filter. */
export const DEVICE_TYPES = ['ios', 'android', 'winrt', 'winphone', 'dotnet', 'web'] as const;

/**
 * Installations in a channel (`channels` equal to a name matches an array holding it) and of a
 * device type, after the last objectId seen: keyset pages by objectId, never skip.
 */
export function installationsQuery(channel: string, deviceType: string, after?: string): Where {
  const where: Where = {};
  if (channel) where.channels = channel;
  if (deviceType) where.deviceType = deviceType;
  if (after) where.objectId = { $gt: after };
  return where;
}

/** A device token is long and secret-looking: its start and end are enough to tell two apart. */
export function shortToken(token: string): string {
  return token.length <= 16 ? token : `${token.slice(0, 8)}…${token.slice(-4)}`;
}
