import { TRIGGER_NAMES, type Registered, type TriggerName } from '../protocol.ts';
import { Parse } from './sdk.ts';
import { httpRequest } from './http-request.ts';
import type { ValidatorOptions } from './validator.ts';

export type Handler = (request: any) => unknown;
export type Validator = ValidatorOptions | Handler;

export interface Definition {
  readonly handler: Handler;
  readonly validator: Validator | undefined;
}

/** Parse Server's class names of the special triggers: files and the login/logout events. */
const FILE_CLASS = '@File';

/** What one app's code defined: functions, jobs and triggers by kind and class. */
export class CloudDefinitions {
  readonly functions = new Map<string, Definition>();
  readonly jobs = new Map<string, Definition>();
  readonly triggers = new Map<string, Definition>();

  trigger(triggerName: TriggerName, className: string): Definition | undefined {
    return this.triggers.get(`${triggerName}.${className}`);
  }

  registered(): Registered {
    return {
      functions: [...this.functions.keys()],
      jobs: [...this.jobs.keys()],
      triggers: [...this.triggers.keys()].map((key) => {
        const dot = key.indexOf('.');
        return { triggerName: key.slice(0, dot) as TriggerName, className: key.slice(dot + 1) };
      }),
    };
  }
}

/**
 * A trigger's class as Parse Server reads it: a name, or a Parse.Object subclass (`Parse.User`,
 * `Parse.Object.extend('Game')`).
 */
function classNameOf(target: unknown): string {
  if (typeof target === 'string') return target;
  if (typeof target === 'function') {
    if (target === Parse.File) return FILE_CLASS;
    const instance = new (target as new () => { className?: string })();
    if (instance.className) return instance.className;
  }
  throw new Error(`A trigger needs a class name or a Parse.Object subclass, not ${String(target)}`);
}

/** Adds Parse Server's registration API to the SDK's own `Parse.Cloud` (run, …) and returns what it records. */
export function installCloudApi(cloud: Record<string, unknown>): CloudDefinitions {
  const defined = new CloudDefinitions();
  const checkHandler = (handler: unknown, what: string) => {
    if (typeof handler !== 'function') throw new Error(`${what} needs a function as its handler`);
  };
  cloud.define = (name: string, handler: Handler, validator?: Validator) => {
    checkHandler(handler, `Parse.Cloud.define("${name}")`);
    defined.functions.set(name, { handler, validator });
  };
  cloud.job = (name: string, handler: Handler) => {
    checkHandler(handler, `Parse.Cloud.job("${name}")`);
    defined.jobs.set(name, { handler, validator: undefined });
  };
  for (const triggerName of TRIGGER_NAMES) {
    const fixedClass = fixedClassOf(triggerName);
    cloud[triggerName] = (...args: unknown[]) => {
      // The class-free forms: beforeLogin(handler), beforeSaveFile(handler), …
      const [target, handler, validator] = fixedClass ? [fixedClass, args[0], args[1]] : [classNameOf(args[0]), args[1], args[2]];
      checkHandler(handler, `Parse.Cloud.${triggerName}`);
      defined.triggers.set(`${triggerName}.${target as string}`, { handler: handler as Handler, validator: validator as Validator | undefined });
    };
  }
  cloud.httpRequest = httpRequest;
  // Parse Server's live query and connect triggers: accepted so that code using them loads; never run.
  for (const name of ['beforeConnect', 'beforeSubscribe', 'afterLiveQueryEvent', 'onLiveQueryEvent']) {
    if (!(name in cloud)) cloud[name] = () => undefined;
  }
  return defined;
}

function fixedClassOf(triggerName: TriggerName): string | null {
  if (triggerName.endsWith('File')) return FILE_CLASS;
  if (triggerName === 'beforeLogin' || triggerName === 'afterLogin') return '_User';
  if (triggerName === 'afterLogout') return '_Session';
  return null;
}
