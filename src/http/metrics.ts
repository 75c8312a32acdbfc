import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppRegistry } from '../apps/registry.ts';
import type { Backend } from '../sql/backend.ts';
import type { RouteAnswerHook } from './answer-hooks.ts';

/** Latency buckets in seconds: a read by id is well under a millisecond, a batch or a query may take seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** The apps whose queues one scrape reads at most, and how long their figures are reused. */
const QUEUE_APPS_SCANNED = 100;
const QUEUE_FIGURES_TTL_MS = 5_000;

/** The family of requests that matched no route: their paths are not a family name. */
export const UNMATCHED_FAMILY = 'unmatched';

interface QueueFigures {
  readonly pending: number;
  readonly oldestAge: number;
}

/**
 * The counters of one route family, bound to their labels once: a request then costs an array
 * index, an increment and an observe, no label lookup.
 */
class FamilyMetrics implements RouteAnswerHook {
  constructor(
    private readonly counts: readonly Counter.Internal[],
    private readonly latencies: readonly Histogram.Internal<'family' | 'status'>[],
  ) {}

  answered(status: number, elapsedMs: number): void {
    const index = Math.min(Math.max(Math.floor(status / 100) - 1, 0), 4);
    this.counts[index]!.inc();
    this.latencies[index]!.observe(elapsedMs / 1000);
  }
}

/**
 * The family of a route pattern: its first fixed segment after the API's `/1/` (`classes`,
 * `users`, `batch`…), or of the path (`health`, `apps`). Built from the pattern, never from the
 * request's URL, so the labels stay as few as the routes.
 */
export function routeFamily(pattern: string | undefined): string {
  if (pattern === undefined) return UNMATCHED_FAMILY;
  const segments = pattern.split('/').filter((segment) => segment !== '');
  const first = segments[0] === '1' ? segments[1] : segments[0];
  if (first === undefined || first.startsWith(':') || first.includes('*')) return 'root';
  return first.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * Basalt's Prometheus metrics (GET /metrics, off unless --metrics). Every answered request is
 * counted by the hook `family` binds per route, which the edge calls through AnswerHooks
 * (answer-hooks.ts); the gauges are read when scraped.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly counter: Counter<'family' | 'status'>;
  private readonly histogram: Histogram<'family' | 'status'>;
  private readonly families = new Map<string, FamilyMetrics>();
  private queueRead: { readonly at: number; readonly figures: Promise<QueueFigures> } | null = null;

  /** `workerRestarts`: restarts of cloud code workers so far (src/cloud), read when scraped. */
  constructor(backend: Backend, apps: AppRegistry, workerRestarts: () => number = () => 0) {
    const registers = [this.registry];
    this.counter = new Counter({ name: 'basalt_http_requests_total', help: 'Requests answered, by route family and status class.', labelNames: ['family', 'status'], registers });
    this.histogram = new Histogram({ name: 'basalt_http_request_duration_seconds', help: 'Time from a request\'s arrival to its answer, by route family and status class.', labelNames: ['family', 'status'], buckets: LATENCY_BUCKETS, registers });
    // The gauges are read when scraped (collect), so a request pays nothing for them.
    new Gauge({
      name: 'basalt_db_pool_connections', help: 'PostgreSQL pool connections, by pool and state (total, idle, waiting: callers queued for one).', labelNames: ['pool', 'state'], registers,
      collect() {
        for (const use of backend.poolUse()) {
          this.set({ pool: use.pool, state: 'total' }, use.total);
          this.set({ pool: use.pool, state: 'idle' }, use.idle);
          this.set({ pool: use.pool, state: 'waiting' }, use.waiting);
        }
      },
    });
    new Gauge({
      name: 'basalt_db_open_apps', help: 'App databases (SQLite files) or namespaces (PostgreSQL schemas) this process has open.', registers,
      collect() {
        this.set(backend.openAppCount());
      },
    });
    const readQueues = () => this.readQueues(apps);
    new Gauge({
      name: 'basalt_queue_pending_jobs', help: `Pending jobs (due or scheduled) of the apps this process has open (${QUEUE_APPS_SCANNED} at most), read at most every ${QUEUE_FIGURES_TTL_MS / 1000} s.`, registers,
      async collect() {
        this.set((await readQueues()).pending);
      },
    });
    new Gauge({
      name: 'basalt_queue_oldest_due_seconds', help: 'How long the longest-waiting due job of those apps has been due, in seconds (0: none is due).', registers,
      async collect() {
        this.set((await readQueues()).oldestAge);
      },
    });
    new Counter({
      name: 'basalt_worker_restarts_total', help: 'Restarts of cloud code workers that stopped on their own (an error, out of memory, process.exit, a call past its time limit).', registers,
      collect() {
        this.reset();
        this.inc(workerRestarts());
      },
    });
  }

  /** The pre-bound counters of a route pattern's family (undefined: no route matched); an AnswerHook. */
  family(pattern: string | undefined): RouteAnswerHook {
    const key = pattern ?? '';
    let found = this.families.get(key);
    if (found === undefined) {
      const family = routeFamily(pattern);
      found = new FamilyMetrics(
        STATUS_CLASSES.map((status) => this.counter.labels({ family, status })),
        STATUS_CLASSES.map((status) => this.histogram.labels({ family, status })),
      );
      this.families.set(key, found);
    }
    return found;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** A scrape every few seconds must not read every app's queue each time: the figures are reused for a while. */
  private readQueues(apps: AppRegistry): Promise<QueueFigures> {
    const now = Date.now();
    // Both queue gauges ask in one scrape: they share one read.
    if (this.queueRead === null || now - this.queueRead.at >= QUEUE_FIGURES_TTL_MS) this.queueRead = { at: now, figures: this.scanQueues(apps, now) };
    return this.queueRead.figures;
  }

  private async scanQueues(apps: AppRegistry, now: number): Promise<QueueFigures> {
    let pending = 0;
    let oldest: number | null = null;
    for (const handle of apps.openedHandles(QUEUE_APPS_SCANNED)) {
      try {
        const summary = await handle.jobs.pendingSummary(now);
        pending += summary.pending;
        if (summary.oldestDue !== null && (oldest === null || summary.oldestDue < oldest)) oldest = summary.oldestDue;
      } catch {
        // An app dropped or a database unreachable mid-scrape: the others still count.
      }
    }
    return { pending, oldestAge: oldest === null ? 0 : Math.max(0, now - oldest) / 1000 };
  }
}
