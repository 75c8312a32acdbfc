import pino, { type Logger } from 'pino';
import type { Config } from './config/schema.ts';
import type { Backend } from './sql/backend.ts';
import { AppRegistry } from './apps/registry.ts';
import { AppHooks } from './rest/write/hooks.ts';
import { loadWriteObserver } from './rest/write/observer-module.ts';
import { sessionWrites } from './rest/write/internal.ts';
import { AccountService } from './apps/accounts.ts';
import { SqlSystemStore } from './storage/sql-system.ts';
import { bootstrap, type BootstrapReport } from './apps/bootstrap.ts';
import type { HttpDeps } from './http/deps.ts';
import { appRoutes } from './http/app-routes.ts';
import { RouteTable } from './http/route.ts';
import { Edge } from './http/edge/edge.ts';
import { HttpServer } from './http/edge/server.ts';
import type { EdgeRoute } from './http/edge/types.ts';
import { requestForLog } from './http/log.ts';
import { AnswerHooks } from './http/answer-hooks.ts';
import { metricsRoute } from './http/routes/metrics.ts';
import { classRoutes } from './http/routes/classes.ts';
import { schemaRoutes } from './http/routes/schemas.ts';
import { batchRoute } from './http/routes/batch.ts';
import { scanRoutes } from './http/routes/scans.ts';
import { outboxRoutes } from './http/routes/outbox.ts';
import { eventRoutes } from './http/routes/events.ts';
import { aggregateRoutes } from './http/routes/aggregate.ts';
import { userRoutes } from './http/routes/users.ts';
import { sessionRoutes } from './http/routes/sessions.ts';
import { roleRoutes } from './http/routes/roles.ts';
import { installationRoutes } from './http/routes/installations.ts';
import { configRoutes } from './http/routes/config.ts';
import { serverInfoRoutes } from './http/routes/server-info.ts';
import { purgeRoutes } from './http/routes/purge.ts';
import { unbuiltListRoutes } from './http/routes/unbuilt-lists.ts';
import { functionRoutes } from './http/routes/functions.ts';
import { FunctionSources } from './rest/functions.ts';
import { hookRoutes } from './http/routes/hooks.ts';
import { Webhooks } from './webhooks/service.ts';
import { webhookJob } from './webhooks/delivery-job.ts';
import { WEBHOOK_JOB } from './webhooks/triggers.ts';
import { appsRoutes } from './http/routes/apps.ts';
import { healthRoutes } from './http/routes/health.ts';
import { dashboardRoutes } from './http/routes/dashboard.ts';
import { userPageRoutes } from './http/routes/user-pages.ts';
import { fileRoutes } from './http/routes/files.ts';
import { openFileStorage } from './files/open.ts';
import { queueRoutes } from './http/routes/queue.ts';
import { JobRunner } from './queue/runner.ts';
import { JOB_TYPES } from './queue/job-types.ts';
import { AUTO_INDEX_JOB } from './rest/auto-index.ts';
import { READER_INDEX_JOB } from './schema/store.ts';
import { readerIndexJob } from './rest/reader-index-job.ts';
import { autoIndexJob } from './rest/auto-index-job.ts';
import type { JobType, JobTypes } from './queue/types.ts';
import { pushRoutes } from './http/routes/push.ts';
import { pushJobTypes } from './push/jobs.ts';
import { loadTestPushNetworks, NO_NETWORKS, type PushNetworksProvider } from './push/networks-provider.ts';
import { realPushNetworks } from './push/real-networks.ts';
import { CloudCode } from './cloud/cloud-code.ts';
import { scriptLogRoutes } from './http/routes/script-log.ts';
import { jobRoutes } from './http/routes/jobs.ts';
import { NO_JOBS } from './rest/jobs/source.ts';
import { CLOUD_JOB } from './rest/jobs/status.ts';
import { cloudJobType } from './rest/jobs/run.ts';
import { SCHEDULE_RUN_JOB } from './rest/jobs/schedules.ts';
import { scheduleRunJob } from './rest/jobs/schedule-run.ts';

export interface BasaltServer {
  readonly http: HttpServer;
  readonly backend: Backend;
  readonly bootstrap: BootstrapReport;
  readonly logger: Logger;
  /** Stops accepting, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

/** Loads only the driver in use: each costs memory and start-up time. */
export async function openBackend(config: Config): Promise<Backend> {
  if (config.databaseUrl) {
    const { PostgresBackend } = await import('./sql/postgres/backend.ts');
    return PostgresBackend.open(config.databaseUrl, config.databasePoolSize, config.statementTimeout);
  }
  const { SqliteBackend } = await import('./sql/sqlite/backend.ts');
  return SqliteBackend.open(config.dataDir, { readers: config.sqliteReaders, readTimeoutMs: config.sqliteReadTimeout });
}

/** This server's API root as its own cloud code reaches it: over loopback, whatever address it listens on. */
function loopbackUrl(http: HttpServer): string {
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('the server listens on no TCP port');
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? (address.family === 'IPv6' ? '[::1]' : '127.0.0.1') : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}/1`;
}

/** Wires storage, services and routes. Nothing listens until the caller says so. */
export async function createServer(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<BasaltServer> {
  const backend = await openBackend(config);
  const hooks = new AppHooks();
  // Webhooks (rank 0) and cloud code (rank 1) add their functions here.
  const functions = new FunctionSources();
  if (config.testWriteObserver) {
    logger.warn({ module: config.testWriteObserver }, 'TEST ONLY: a write observer module is loaded (--test-write-observer); do not run this in production');
    await loadWriteObserver(config.testWriteObserver, hooks.shared);
  }
  // Cloud code (docs/cloud-code.md): only with --cloud or --cloud-dir; an app's worker starts when the app is opened.
  const cloud = config.cloud || config.cloudDir
    ? new CloudCode({ defaultEntry: config.cloud ?? null, dir: config.cloudDir ?? null, watch: config.cloudWatch, memoryMb: config.cloudMemoryMb, timeoutMs: config.cloudTimeout }, logger)
    : null;
  if (cloud) functions.add(cloud, 1);
  // Delivery networks with each app's credentials (src/push/networks/), or a test module's.
  let pushNetworks: PushNetworksProvider = realPushNetworks(config);
  if (config.testPushNetworks) {
    logger.warn({ module: config.testPushNetworks }, 'TEST ONLY: push networks are loaded from a module (--test-push-networks); do not run this in production');
    pushNetworks = await loadTestPushNetworks(config.testPushNetworks);
  }
  // Webhook deliveries and push pages are job types of src/webhooks and src/push (see delivery-job.ts for why they are added here).
  // Automatic indexes build under the backend's cross-process lock (rest/auto-index-job.ts).
  // Cloud code jobs and schedule runs too (src/rest/jobs): they use the write pipeline.
  const jobs = cloud ?? NO_JOBS;
  const jobTypes: JobTypes = { ...JOB_TYPES, [CLOUD_JOB]: cloudJobType(jobs) as JobType, [SCHEDULE_RUN_JOB]: scheduleRunJob as JobType, [WEBHOOK_JOB]: webhookJob as JobType, [AUTO_INDEX_JOB]: autoIndexJob(backend, config.autoIndexMaxPerClass) as JobType, [READER_INDEX_JOB]: readerIndexJob(backend) as JobType, ...pushJobTypes({ networks: pushNetworks, pageSize: config.pushPageSize }) };
  const system = new SqlSystemStore(backend);
  const apps = new AppRegistry(backend, system, hooks, sessionWrites, (type) => jobTypes[type]?.maxAttempts ?? config.queueMaxAttempts, config.countCacheTime);
  // Before any app opens: each app's hooks are read as it opens, before its first write.
  const webhooks = new Webhooks(apps, backend, { timeoutMs: config.webhookTimeout }, logger);
  functions.add(webhooks, 0);
  const accounts = new AccountService(system);
  if (cloud) {
    cloud.yieldTriggersTo(webhooks.hasTriggerHook);
    apps.whenOpened((handle) => cloud.attach(handle));
  }
  // Several processes may start at once on one PostgreSQL: only one creates the default app.
  const report = await backend.exclusive('bootstrap', () => bootstrap(config, apps, accounts));
  cloud?.setDefaultApp(report.defaultApp?.applicationId ?? null);
  const deps: HttpDeps = { config, backend, apps, accounts, logger };
  const files = { storage: await openFileStorage(config), sizeLimit: config.fileSizeLimit };

  // What runs for every answered request; empty (and never called) by default.
  const answerHooks = new AnswerHooks();
  const routes: EdgeRoute[] = [...healthRoutes(deps), ...appsRoutes(deps), ...userPageRoutes(deps), ...dashboardRoutes(deps), ...fileRoutes(deps, files)];
  if (config.metrics) {
    // Loaded only when asked for: prom-client adds about 13 MB to the resident memory of a process.
    const { HttpMetrics } = await import('./http/metrics.ts');
    const metrics = new HttpMetrics(backend, apps, () => cloud?.restarts ?? 0);
    answerHooks.add((pattern) => metrics.family(pattern));
    routes.push(metricsRoute(metrics, config.metricsToken));
    if (config.metricsToken === undefined) logger.warn('GET /metrics is served without --metrics-token: whoever reaches the port can read it.');
  }
  // The batch route dispatches through the same table it is part of.
  let table: RouteTable;
  // Built-in classes' routes come first: their /1/classes/_X paths must win over the generic ones.
  table = new RouteTable([...roleRoutes, ...installationRoutes, ...userRoutes, ...sessionRoutes, ...classRoutes, ...configRoutes, ...schemaRoutes, ...scanRoutes, ...outboxRoutes, ...eventRoutes, ...aggregateRoutes, ...queueRoutes, ...serverInfoRoutes, ...purgeRoutes(webhooks), ...functionRoutes(functions), ...hookRoutes(webhooks), ...pushRoutes, ...scriptLogRoutes(cloud), ...jobRoutes(jobs), ...unbuiltListRoutes, batchRoute(() => table)]);
  routes.push(...appRoutes(deps, table));
  // Request logs print the URL, and GET /1/login carries the password there (log.ts).
  const requestLog = logger.child({}, { serializers: { req: requestForLog } });
  const edge = new Edge(routes, { bodyLimit: config.bodyLimit, trustProxy: config.trustProxy }, requestLog, answerHooks);
  const http = new HttpServer(edge);
  const queue = new JobRunner(apps, backend, jobTypes, { concurrency: config.queueConcurrency, sweepIntervalMs: config.queueSweepInterval, leaseMs: config.queueLeaseTime, retryDelayMs: config.queueRetryDelay }, logger);
  if (cloud) {
    http.server.once('listening', () => {
      cloud.setServerUrl(loopbackUrl(http));
      // The default app's code starts with the server, not with its first request.
      const defaultApp = report.defaultApp;
      if (defaultApp) void apps.handle(defaultApp).catch((error: unknown) => logger.error({ err: error }, 'could not open the default app'));
    });
  }
  queue.start();

  return {
    http,
    backend,
    bootstrap: report,
    logger,
    async close() {
      // Running jobs get half the shutdown timeout to finish while requests drain; the leases of
      // those still running are then released, so another process takes them at once.
      await Promise.all([http.close(), queue.stop(config.shutdownTimeout / 2)]);
      cloud?.close();
      await files.storage.close();
      await pushNetworks.close();
      await backend.close();
    },
  };
}
