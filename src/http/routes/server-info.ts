import type { AppRoute } from '../route.ts';
import { serverInfo } from '../../rest/server-info.ts';

/** What Parse Dashboard asks first of a server (master key). */
export const serverInfoRoutes: AppRoute[] = [{ method: 'GET', path: '/1/serverInfo', handler: (ctx) => serverInfo(ctx) }];
