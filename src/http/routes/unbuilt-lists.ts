import type { AppRoute } from '../route.ts';
import { emptyList, type UnbuiltList } from '../../rest/unbuilt-lists.ts';

const list = (path: string, name: UnbuiltList): AppRoute => ({ method: 'GET', path, handler: (ctx) => emptyList(ctx, name) });

/** Lists of features not built yet, which answer empty (master key): see rest/unbuilt-lists.ts. */
export const unbuiltListRoutes: AppRoute[] = [
  list('/1/push_audiences', 'pushAudiences'),
];
