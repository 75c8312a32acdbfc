import type { IncomingHttpHeaders } from 'node:http';
import type { DeliveryResult, PushDevice } from './network.ts';
import { TokenRefused } from './http.ts';

export function delivered(device: PushDevice): DeliveryResult {
  return { objectId: device.objectId, ok: true };
}

export function failed(device: PushDevice, error: string, extra: Omit<DeliveryResult, 'objectId' | 'ok' | 'error'> = {}): DeliveryResult {
  return { objectId: device.objectId, ok: false, error, ...extra };
}

/** A failure to answer: 429 and 5xx may pass later, with the network's Retry-After when it gave one. */
export function failedWithStatus(device: PushDevice, error: string, status: number, headers: IncomingHttpHeaders | Record<string, unknown>): DeliveryResult {
  const retryable = status === 429 || status >= 500;
  const retryAfterMs = retryable ? retryAfterOf(headers['retry-after']) : null;
  return failed(device, error, { ...(retryable ? { retryable } : {}), ...(retryAfterMs !== null ? { retryAfterMs } : {}) });
}

/** Retry-After is seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterOf(value: unknown, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || text.trim() === '') return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A thrown error as a message: a connection refused, a TLS failure or a timeout is worth another try later; a refused credential is not. */
export function failedToConnect(device: PushDevice, network: string, error: unknown): DeliveryResult {
  const retryable = !(error instanceof TokenRefused) || error.status === 429 || error.status >= 500;
  return failed(device, `${network}: ${error instanceof Error ? error.message : String(error)}`, retryable ? { retryable } : {});
}
