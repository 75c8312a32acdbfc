import type { AppRoute } from '../route.ts';
import { purgeClass } from '../../rest/purge.ts';

/** Parse's "delete all rows" of a class (master key). */
export const purgeRoutes: AppRoute[] = [{ method: 'DELETE', path: '/1/purge/:className', handler: (ctx, { params }) => purgeClass(ctx, params.className!) }];
