import { isPlainObject } from '../encoding/values.ts';
import type { AppStore } from '../storage/port.ts';
import type { TriggerName } from '../rest/hooks.ts';

/**
 * The bodies of webhook calls (decisions.md "Hooks"), in Parse Server's shape: the user as the
 * JSON of a Parse user (its fields, objectId, createdAt, updatedAt; never the server's own `_`
 * fields), the object with its className.
 */
export interface FunctionCallBody {
  readonly master: boolean;
  readonly user?: Record<string, unknown>;
  readonly installationId?: string;
  readonly params: Record<string, unknown>;
  readonly functionName: string;
}

export interface TriggerCallBody {
  readonly master: boolean;
  readonly user?: Record<string, unknown>;
  readonly installationId?: string;
  readonly triggerName: TriggerName;
  readonly object: Record<string, unknown>;
  readonly original?: Record<string, unknown>;
}

/** A trigger call without its user, which the queue reads when it delivers (a queued step cannot await a read). */
export interface QueuedTriggerCall {
  readonly url: string;
  readonly timeoutMs: number;
  readonly userId: string | null;
  readonly body: Omit<TriggerCallBody, 'user'>;
}

/** The user of a call as Parse Server sends it; the session token when the call came with one. */
export async function userJson(store: AppStore, userId: string | null, sessionToken: string | null = null): Promise<Record<string, unknown> | undefined> {
  if (!userId) return undefined;
  const user = await store.get('_User', userId, null);
  if (!user) return undefined;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(user.data)) if (!field.startsWith('_')) out[field] = value;
  out.objectId = user.objectId;
  out.createdAt = user.createdAt;
  out.updatedAt = user.updatedAt;
  if (sessionToken) out.sessionToken = sessionToken;
  return out;
}

export function withClassName(object: Record<string, unknown>, className: string): Record<string, unknown> {
  return { ...object, className };
}

/** Reads a stored queued call back (anything else is a payload no handler can deliver). */
export function parseQueuedCall(payload: unknown): QueuedTriggerCall | null {
  if (!isPlainObject(payload) || typeof payload.url !== 'string' || typeof payload.timeoutMs !== 'number' || !isPlainObject(payload.body)) return null;
  if (payload.userId !== null && typeof payload.userId !== 'string') return null;
  const body = payload.body;
  if (typeof body.triggerName !== 'string' || !isPlainObject(body.object) || typeof body.master !== 'boolean') return null;
  return payload as unknown as QueuedTriggerCall;
}
