import type { AppHandle } from '../apps/registry.ts';
import { newObjectId } from '../apps/ids.ts';
import { TRUE } from '../query/ast.ts';
import { ensureBuiltinClass } from '../schema/builtin.ts';
import { UniqueViolation, type StoredObject } from '../storage/port.ts';
import { INTERNAL, writeCreate, writeDelete, writeUpdate, type WriteTarget } from '../rest/write/pipeline.ts';
import { TRIGGER_NAMES, type HookDefinition, type HookKey, type TriggerName } from '../rest/hooks.ts';

/**
 * Hook definitions as objects of the built-in class `_Hooks` (Parse Server's name and fields),
 * written through the write pipeline as Basalt's own writes. Their ACL is empty, so only the
 * master key reads them, and the generic /1/classes routes refuse the class to every other key.
 */
export const HOOKS_CLASS = '_Hooks';

/** Far more hooks than any app defines: every definition is read at once. */
const MAX_HOOKS = 10_000;

export interface StoredHook {
  readonly objectId: string;
  readonly definition: HookDefinition;
}

/** Every hook of an app, functions first, each kind in name order; none before the first hook makes the class. */
export async function readHooks(app: AppHandle): Promise<StoredHook[]> {
  if (!(await app.schemas.get(HOOKS_CLASS))) return [];
  const objects = await app.store.find(HOOKS_CLASS, { where: TRUE, order: [], limit: MAX_HOOKS, skip: 0 });
  const hooks = objects.flatMap((object) => {
    const definition = definitionOf(object);
    return definition ? [{ objectId: object.objectId, definition }] : [];
  });
  return hooks.sort((a, b) => sortKey(a.definition).localeCompare(sortKey(b.definition)));
}

export function keyMatches(definition: HookDefinition, key: HookKey): boolean {
  return key.kind === 'function' ? definition.functionName === key.functionName : definition.className === key.className && definition.triggerName === key.triggerName;
}

/** Writes a new hook; null when one with its key exists (the unique indexes decide a race between processes). */
export async function insertHook(app: AppHandle, key: HookKey, url: string): Promise<HookDefinition | null> {
  await ensureBuiltinClass(app.schemas, HOOKS_CLASS);
  if ((await readHooks(app)).some((hook) => keyMatches(hook.definition, key))) return null;
  const definition = definitionFor(key, url);
  const now = new Date().toISOString();
  const object: StoredObject = { objectId: newObjectId(), createdAt: now, updatedAt: now, data: { ...definition }, rperm: [], wperm: [] };
  try {
    await writeCreate(targetOf(app), INTERNAL, { className: HOOKS_CLASS, write: { object, relations: [] } });
  } catch (error) {
    if (error instanceof UniqueViolation) return null;
    throw error;
  }
  return definition;
}

export async function changeHookUrl(app: AppHandle, key: HookKey, url: string): Promise<HookDefinition | null> {
  const found = (await readHooks(app)).find((hook) => keyMatches(hook.definition, key));
  if (!found) return null;
  const updated = await writeUpdate(targetOf(app), INTERNAL, {
    className: HOOKS_CLASS,
    objectId: found.objectId,
    write: null,
    change: (current) => ({ object: { ...current, updatedAt: new Date().toISOString(), data: { ...current.data, url } }, relations: [] }),
  });
  return updated && definitionOf(updated);
}

export async function removeHook(app: AppHandle, key: HookKey): Promise<boolean> {
  const found = (await readHooks(app)).find((hook) => keyMatches(hook.definition, key));
  if (!found) return false;
  return writeDelete(targetOf(app), INTERNAL, { className: HOOKS_CLASS, objectId: found.objectId, write: null });
}

function targetOf(app: AppHandle): WriteTarget {
  return { store: app.store, schemas: app.schemas, hooks: app.hooks };
}

function definitionFor(key: HookKey, url: string): HookDefinition {
  return key.kind === 'function' ? { functionName: key.functionName, url } : { className: key.className, triggerName: key.triggerName, url };
}

/** A stored object as a definition; null for one that is neither kind (written by hand through the schema API, say). */
function definitionOf(object: StoredObject): HookDefinition | null {
  const { functionName, className, triggerName, url } = object.data;
  if (typeof url !== 'string') return null;
  if (typeof functionName === 'string') return { functionName, url };
  if (typeof className === 'string' && (TRIGGER_NAMES as readonly unknown[]).includes(triggerName)) return { className, triggerName: triggerName as TriggerName, url };
  return null;
}

function sortKey(definition: HookDefinition): string {
  return definition.functionName !== undefined ? `0${definition.functionName}` : `1${definition.className}\u0000${definition.triggerName}`;
}
