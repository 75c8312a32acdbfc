import type { AppRoute } from '../route.ts';
import { listScans } from '../../rest/scan-list.ts';

/** Queries that scanned large tables without an index (master key only; see docs/api.md). */
export const scanRoutes: AppRoute[] = [{ method: 'GET', path: '/1/scans', handler: (ctx) => listScans(ctx) }];
