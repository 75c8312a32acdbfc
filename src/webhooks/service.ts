import type { Logger } from 'pino';
import { Errors } from '../errors/index.ts';
import type { AppHandle, AppRegistry } from '../apps/registry.ts';
import type { Backend } from '../sql/backend.ts';
import type { FunctionRunner, FunctionSource } from '../rest/functions.ts';
import type { HookDefinition, HookDefinitions, HookKey, HookKind } from '../rest/hooks.ts';
import type { QueuedPoint } from '../rest/write/hooks.ts';
import { callWebhook } from './caller.ts';
import { changeHookUrl, insertHook, keyMatches, readHooks, removeHook } from './definitions.ts';
import { userJson, type FunctionCallBody } from './payloads.ts';
import { beforeObserver, queuedObserver } from './triggers.ts';

export interface WebhookOptions {
  readonly timeoutMs: number;
}

/** One app's hooks as this process knows them, and the observers they put in its write pipeline. */
interface AppHooksState {
  readonly handle: AppHandle;
  functions: ReadonlyMap<string, string>;
  triggers: ReadonlyMap<string, string>;
  /** Takes this app's observers back out of its registry. */
  unregister: () => void;
  /** Bumped by each reload: only the latest one's result is kept. */
  generation: number;
}

/**
 * Function and trigger hooks (spec 4.13, decisions.md "Hooks"). The definitions are read when an
 * app opens in this process and kept in memory; a change made anywhere is published to every
 * process ('hooks'), which reads them again. Observers are registered only for the classes and
 * points that have a hook, so an app without hooks pays nothing on its writes.
 */
export class Webhooks implements FunctionSource, HookDefinitions {
  private readonly states = new Map<string, AppHooksState>();

  constructor(
    private readonly apps: AppRegistry,
    private readonly backend: Backend,
    private readonly options: WebhookOptions,
    private readonly log: Logger,
  ) {
    apps.whenOpened((handle) => this.open(handle));
    backend.subscribe((message) => {
      if (message.what !== 'hooks') return;
      const state = this.states.get(message.appId);
      if (state) this.reload(state).catch((error: unknown) => this.log.error({ err: error, appId: message.appId }, 'could not read the webhooks again'));
    });
  }

  /**
   * Whether a trigger hook is defined for this class and point, from memory: cloud code skips its
   * own trigger of the same name, since a hook wins (decisions.md "Hooks").
   */
  readonly hasTriggerHook = (applicationId: string, className: string, triggerName: string): boolean => {
    return this.states.get(applicationId)?.triggers.has(triggerKey(className, triggerName)) ?? false;
  };

  /** FunctionSource: a function hook of this name, or null (cloud code may then have one). */
  runnerOf(applicationId: string, functionName: string): FunctionRunner | null {
    const state = this.states.get(applicationId);
    const url = state?.functions.get(functionName);
    if (!state || url === undefined) return null;
    return async (call) => {
      const user = await userJson(call.store, call.user, call.sessionToken);
      const body: FunctionCallBody = {
        master: call.master,
        ...(user ? { user } : {}),
        ...(call.installationId ? { installationId: call.installationId } : {}),
        params: call.params,
        functionName,
      };
      const outcome = await callWebhook(url, body, await this.keyOf(applicationId), { timeoutMs: this.options.timeoutMs });
      if (outcome.kind === 'error') throw Errors.scriptFailed(outcome.message);
      if (outcome.kind === 'failed') throw Errors.scriptFailed(`The function hook ${functionName} failed: ${outcome.message}.`);
      return outcome.value;
    };
  }

  async list(app: AppHandle, kind: HookKind): Promise<HookDefinition[]> {
    const hooks = await readHooks(app);
    return hooks.map((hook) => hook.definition).filter((definition) => (kind === 'function') === (definition.functionName !== undefined));
  }

  async get(app: AppHandle, key: HookKey): Promise<HookDefinition | null> {
    return (await readHooks(app)).find((hook) => keyMatches(hook.definition, key))?.definition ?? null;
  }

  create(app: AppHandle, key: HookKey, url: string): Promise<HookDefinition | null> {
    return this.changed(app, insertHook(app, key, url));
  }

  update(app: AppHandle, key: HookKey, url: string): Promise<HookDefinition | null> {
    return this.changed(app, changeHookUrl(app, key, url));
  }

  delete(app: AppHandle, key: HookKey): Promise<boolean> {
    return this.changed(app, removeHook(app, key));
  }

  async reread(app: AppHandle): Promise<void> {
    await this.changed(app, Promise.resolve());
  }

  /** After a change: this process reads the hooks again at once, the others when the message reaches them. */
  private async changed<T>(app: AppHandle, change: Promise<T>): Promise<T> {
    const result = await change;
    const applicationId = app.record.applicationId;
    const state = this.states.get(applicationId);
    if (state) await this.reload(state);
    await this.backend.publish({ appId: applicationId, what: 'hooks' });
    return result;
  }

  private async open(handle: AppHandle): Promise<void> {
    const state: AppHooksState = { handle, functions: new Map(), triggers: new Map(), unregister: () => {}, generation: 0 };
    await this.reload(state);
    this.states.set(handle.record.applicationId, state);
  }

  private async reload(state: AppHooksState): Promise<void> {
    const generation = ++state.generation;
    const hooks = await readHooks(state.handle);
    if (generation !== state.generation) return;
    const functions = new Map<string, string>();
    const triggers = new Map<string, string>();
    for (const { definition } of hooks) {
      if (definition.functionName !== undefined) functions.set(definition.functionName, definition.url);
      else triggers.set(triggerKey(definition.className, definition.triggerName), definition.url);
    }
    state.unregister();
    state.functions = functions;
    state.triggers = triggers;
    state.unregister = this.register(state.handle, hooks.map((hook) => hook.definition));
  }

  /** Puts one observer per trigger hook in the app's registry; returns what takes them out again. */
  private register(handle: AppHandle, definitions: readonly HookDefinition[]): () => void {
    const registry = handle.hooks;
    const undo: (() => void)[] = [];
    const applicationId = handle.record.applicationId;
    const deps = { key: () => this.keyOf(applicationId), timeoutMs: this.options.timeoutMs };
    for (const definition of definitions) {
      if (definition.className === undefined) continue;
      const { className, triggerName, url } = definition;
      if (triggerName === 'beforeSave' || triggerName === 'beforeDelete') {
        const observer = beforeObserver(url, deps);
        registry.on(triggerName, className, observer);
        undo.push(() => registry.off(triggerName, className, observer));
      } else {
        const point: QueuedPoint = triggerName;
        const observer = queuedObserver(url, handle.jobs, this.options.timeoutMs);
        registry.onQueued(point, className, observer);
        undo.push(() => registry.offQueued(point, className, observer));
      }
    }
    return () => undo.forEach((run) => run());
  }

  /** The app's webhook key as it is now (keys can be rotated through /1/apps). */
  private async keyOf(applicationId: string): Promise<string> {
    const record = this.apps.findLoaded(applicationId) ?? (await this.apps.find(applicationId));
    return record?.keys.webhookKey ?? '';
  }
}

function triggerKey(className: string, triggerName: string): string {
  return `${className}\u0000${triggerName}`;
}
