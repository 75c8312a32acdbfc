import type { AppRoute, RouteInput } from '../route.ts';
import { createHook, deleteHook, getHook, listHooks, updateHook, type HookDefinitions, type HookKey, type TriggerName } from '../../rest/hooks.ts';

/** Spec 4.13: function and trigger hooks, master key only (rest/hooks.ts). */
export function hookRoutes(hooks: HookDefinitions): AppRoute[] {
  const fn = ({ params }: RouteInput): HookKey => ({ kind: 'function', functionName: params.functionName! });
  const trigger = ({ params }: RouteInput): HookKey => ({ kind: 'trigger', className: params.className!, triggerName: params.triggerName as TriggerName });
  return [
    { method: 'GET', path: '/1/hooks/functions', handler: (ctx) => listHooks(ctx, hooks, 'function') },
    { method: 'POST', path: '/1/hooks/functions', handler: (ctx, input) => createHook(ctx, hooks, 'function', input.body) },
    { method: 'GET', path: '/1/hooks/functions/:functionName', handler: (ctx, input) => getHook(ctx, hooks, fn(input)) },
    { method: 'PUT', path: '/1/hooks/functions/:functionName', handler: (ctx, input) => updateHook(ctx, hooks, fn(input), input.body) },
    { method: 'DELETE', path: '/1/hooks/functions/:functionName', handler: (ctx, input) => deleteHook(ctx, hooks, fn(input)) },
    { method: 'GET', path: '/1/hooks/triggers', handler: (ctx) => listHooks(ctx, hooks, 'trigger') },
    { method: 'POST', path: '/1/hooks/triggers', handler: (ctx, input) => createHook(ctx, hooks, 'trigger', input.body) },
    { method: 'GET', path: '/1/hooks/triggers/:className/:triggerName', handler: (ctx, input) => getHook(ctx, hooks, trigger(input)) },
    { method: 'PUT', path: '/1/hooks/triggers/:className/:triggerName', handler: (ctx, input) => updateHook(ctx, hooks, trigger(input), input.body) },
    { method: 'DELETE', path: '/1/hooks/triggers/:className/:triggerName', handler: (ctx, input) => deleteHook(ctx, hooks, trigger(input)) },
  ];
}
