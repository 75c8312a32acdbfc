import type { AppRoute } from '../route.ts';
import { listOutbox } from '../../rest/outbox.ts';

/** The mail kept for apps without SMTP settings, and mail that failed (master key only; see docs/api.md). */
export const outboxRoutes: AppRoute[] = [{ method: 'GET', path: '/1/outbox', handler: (ctx, { query }) => listOutbox(ctx, query) }];
