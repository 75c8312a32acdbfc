import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { runBatch, type BatchCommand } from '../../rest/batch.ts';
import type { RequestContext } from '../../rest/context.ts';
import type { AppRoute, Method, RouteTable } from '../route.ts';
import { quote } from '../../errors/quote.ts';

/** Spec 4.1 batch: commands are dispatched through the same route table as direct requests. */
export function batchRoute(table: () => RouteTable): AppRoute {
  const dispatch = async (ctx: RequestContext, command: BatchCommand) => {
    const [path, search = ''] = command.path.split('?');
    if (!path!.startsWith('/1/')) throw Errors.invalidJson(`Batch paths start with /1/: ${quote(command.path, 100)}.`);
    const matched = table().match(command.method as Method, path!);
    if (!matched || matched.route.path === '/1/batch') throw Errors.commandUnavailable(`No endpoint at ${command.method} ${path!.slice(0, 200)} for a batch.`);
    // The same rule as for a direct request: a body, when there is one, is a JSON object.
    const body = command.body ?? undefined;
    if (body !== undefined && !isPlainObject(body)) throw Errors.invalidJson('The body of a batch command must be a JSON object.');
    const query = Object.fromEntries(new URLSearchParams(search));
    const input = command.method === 'GET' ? { params: matched.params, query: { ...query, ...body }, body: undefined } : { params: matched.params, query, body: body ?? {} };
    return matched.route.handler(ctx, input);
  };
  return { method: 'POST', path: '/1/batch', handler: (ctx, { body }) => runBatch(ctx, body, dispatch) };
}
