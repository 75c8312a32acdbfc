import type { AppRoute } from '../route.ts';
import { aggregate } from '../../rest/aggregate.ts';

/** Parse's `query.distinct()` and `query.aggregate()` (master key only; see docs/api.md). */
export const aggregateRoutes: AppRoute[] = [{ method: 'GET', path: '/1/aggregate/:className', handler: (ctx, { params, query }) => aggregate(ctx, params.className!, query) }];
