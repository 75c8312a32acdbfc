/**
 * Every option Basalt understands, in one typed table: the flag, the environment variable, the
 * type, the default and one line of documentation. `docs/config.md` and `--help` are generated
 * from this table, and `loadConfig` refuses anything that is not in it.
 */
export type OptionType = 'string' | 'integer' | 'boolean' | 'url';

export interface OptionSpec {
  readonly flag: string;
  readonly env: string;
  readonly type: OptionType;
  readonly default?: string | number | boolean;
  readonly doc: string;
  readonly secret?: boolean;
  /** The smallest value an integer option takes (0 when absent). */
  readonly min?: number;
}

export const OPTIONS = {
  port: { flag: 'port', env: 'BASALT_PORT', type: 'integer', default: 1337, doc: 'TCP port to listen on (0 picks a free port).' },
  host: { flag: 'host', env: 'BASALT_HOST', type: 'string', default: '0.0.0.0', doc: 'Address to listen on.' },
  dataDir: { flag: 'data-dir', env: 'BASALT_DATA_DIR', type: 'string', default: './data', doc: 'Directory for the embedded SQLite databases and local files.' },
  databaseUrl: { flag: 'database', env: 'BASALT_DATABASE_URL', type: 'url', doc: 'postgres://user@host:port/db to run on PostgreSQL instead of the embedded SQLite.', secret: true },
  publicUrl: { flag: 'public-url', env: 'BASALT_PUBLIC_URL', type: 'url', doc: 'The URL clients reach this server at (Location headers, file URLs, links); without it, each request\'s own scheme and Host header are used.' },
  appId: { flag: 'app-id', env: 'BASALT_APP_ID', type: 'string', doc: 'Application id of the default app; created or updated on start.' },
  appName: { flag: 'app-name', env: 'BASALT_APP_NAME', type: 'string', default: 'Basalt', doc: 'Name of the default app when it is first created.' },
  masterKey: { flag: 'master-key', env: 'BASALT_MASTER_KEY', type: 'string', doc: 'Master key of the default app.', secret: true },
  restKey: { flag: 'rest-key', env: 'BASALT_REST_KEY', type: 'string', doc: 'REST API key of the default app.', secret: true },
  clientKey: { flag: 'client-key', env: 'BASALT_CLIENT_KEY', type: 'string', doc: 'Client key of the default app.', secret: true },
  javascriptKey: { flag: 'javascript-key', env: 'BASALT_JAVASCRIPT_KEY', type: 'string', doc: 'JavaScript key of the default app.', secret: true },
  windowsKey: { flag: 'windows-key', env: 'BASALT_WINDOWS_KEY', type: 'string', doc: 'Windows (.NET) key of the default app.', secret: true },
  webhookKey: { flag: 'webhook-key', env: 'BASALT_WEBHOOK_KEY', type: 'string', doc: 'Webhook key of the default app.', secret: true },
  adminEmail: { flag: 'admin-email', env: 'BASALT_ADMIN_EMAIL', type: 'string', doc: 'Email of the admin account; created or updated on start (with --admin-password).' },
  adminPassword: { flag: 'admin-password', env: 'BASALT_ADMIN_PASSWORD', type: 'string', doc: 'Password of the admin account.', secret: true },
  logLevel: { flag: 'log-level', env: 'BASALT_LOG_LEVEL', type: 'string', default: 'info', doc: 'One of fatal, error, warn, info, debug, trace, silent.' },
  bodyLimit: { flag: 'body-limit', env: 'BASALT_BODY_LIMIT', type: 'integer', default: 1048576, doc: 'Largest JSON request body in bytes (413, code 116 above it).' },
  objectSizeLimit: { flag: 'object-size-limit', env: 'BASALT_OBJECT_SIZE_LIMIT', type: 'integer', default: 131072, doc: 'Largest stored object in bytes of encoded JSON (code 116 above it).' },
  shutdownTimeout: { flag: 'shutdown-timeout', env: 'BASALT_SHUTDOWN_TIMEOUT', type: 'integer', default: 10000, doc: 'Milliseconds to wait for in-flight requests on SIGTERM/SIGINT before closing anyway.' },
  databasePoolSize: { flag: 'database-pool-size', env: 'BASALT_DATABASE_POOL_SIZE', type: 'integer', default: 20, doc: 'PostgreSQL connections per server process, opened as requests need them (a quarter serve finds and counts planned per run, a quarter pages planned once for any values, the rest everything else; at least one each, so 1 or 2 open 3), and one more, opened by the first regex query, that holds the regex slots shared by every process. With PostgreSQL\'s default max_connections of 100, four processes at the default fit; lower it for more.' },
  sqliteReaders: { flag: 'sqlite-readers', env: 'BASALT_SQLITE_READERS', type: 'integer', default: 2, doc: 'Threads that run SQLite finds, counts and aggregates beside the main thread, each with its own read-only connections, so a long scan holds up no other request; with any, one more thread copies the WAL back into the app files (checkpoints). 0 runs every statement and checkpoint on the main thread. Gets by id, writes and reads inside a transaction stay on the main thread.' },
  sqliteReadTimeout: { flag: 'sqlite-read-timeout', env: 'BASALT_SQLITE_READ_TIMEOUT', type: 'integer', default: 30000, min: 1, doc: 'Milliseconds a SQLite read on a reader thread (--sqlite-readers) may run; past it, the thread is stopped and replaced, and the request answered with code 124 (TIMEOUT).' },
  statementTimeout: { flag: 'statement-timeout', env: 'BASALT_STATEMENT_TIMEOUT', type: 'integer', default: 30000, doc: 'Milliseconds a PostgreSQL statement of a request may run before it is cancelled and answered with code 124 (PostgreSQL statement_timeout on the pooled connections; schema changes and migrations have no limit; 0: no limit). SQLite has no general limit (see docs/architecture.md).' },
  countCacheTime: { flag: 'count-cache-time', env: 'BASALT_COUNT_CACHE_TIME', type: 'integer', default: 5000, doc: 'Milliseconds a count above 1,000 is remembered and answered again without counting (the spec lets counts of classes over 1,000 objects be inaccurate). Any write of this process to the app forgets every remembered count at once, so only writes of other processes sharing the database can be missed, for at most this long; 0: every count is counted.' },
  trustProxy: { flag: 'trust-proxy', env: 'BASALT_TRUST_PROXY', type: 'boolean', default: false, doc: 'Take the client address from X-Forwarded-For (behind a reverse proxy); per-address limits count that address.' },
  authRequestsPerMinute: { flag: 'auth-requests-per-minute', env: 'BASALT_AUTH_REQUESTS_PER_MINUTE', type: 'integer', default: 30, doc: 'Login, sign-up and password-reset requests per minute per client address and app (429, code 155 above it; 0: no limit). An app\'s rateLimits.authRequestsPerMinute overrides it.' },
  facebookGraphUrl: { flag: 'facebook-graph-url', env: 'BASALT_FACEBOOK_GRAPH_URL', type: 'url', default: 'https://graph.facebook.com', doc: 'Facebook Graph API that checks facebook authData tokens; an app\'s auth.facebook.graphUrl overrides it.' },
  twitterApiUrl: { flag: 'twitter-api-url', env: 'BASALT_TWITTER_API_URL', type: 'url', default: 'https://api.twitter.com', doc: 'Twitter API that checks twitter authData tokens (verify_credentials); an app\'s auth.twitter.apiUrl overrides it.' },
  filesStorage: { flag: 'files-storage', env: 'BASALT_FILES_STORAGE', type: 'string', default: 'disk', doc: 'Where uploaded files are kept: disk (under --files-dir; one machine) or s3 (an S3-compatible bucket, shared by every server process).' },
  filesDir: { flag: 'files-dir', env: 'BASALT_FILES_DIR', type: 'string', doc: 'Directory of uploaded files with --files-storage disk (default: the files folder of --data-dir).' },
  dashboardDir: { flag: 'dashboard-dir', env: 'BASALT_DASHBOARD_DIR', type: 'string', doc: 'Directory of the built dashboard served at /dashboard (default: dashboard/dist of the installation, made by npm run build).' },
  fileSizeLimit: { flag: 'file-size-limit', env: 'BASALT_FILE_SIZE_LIMIT', type: 'integer', default: 10485760, doc: 'Largest uploaded file in bytes (413, code 129 above it).' },
  s3Bucket: { flag: 's3-bucket', env: 'BASALT_S3_BUCKET', type: 'string', doc: 'Bucket of uploaded files with --files-storage s3 (required there); it must exist.' },
  s3Region: { flag: 's3-region', env: 'BASALT_S3_REGION', type: 'string', default: 'us-east-1', doc: 'Region of the bucket (requests are signed for it).' },
  s3Endpoint: { flag: 's3-endpoint', env: 'BASALT_S3_ENDPOINT', type: 'url', doc: 'URL of an S3-compatible service (MinIO, Ceph, R2, …); without it, AWS S3 of --s3-region.' },
  s3AccessKeyId: { flag: 's3-access-key-id', env: 'BASALT_S3_ACCESS_KEY_ID', type: 'string', doc: 'Access key id; without it (and the secret), the AWS SDK\'s default credential chain (AWS_ environment variables, shared config, instance role).', secret: true },
  s3SecretAccessKey: { flag: 's3-secret-access-key', env: 'BASALT_S3_SECRET_ACCESS_KEY', type: 'string', doc: 'Secret access key that goes with --s3-access-key-id.', secret: true },
  s3ForcePathStyle: { flag: 's3-force-path-style', env: 'BASALT_S3_FORCE_PATH_STYLE', type: 'boolean', default: false, doc: 'Address the bucket in the path (http://host/bucket/key) instead of the host name, as most self-hosted S3-compatible services need.' },
  s3Prefix: { flag: 's3-prefix', env: 'BASALT_S3_PREFIX', type: 'string', doc: 'Text put before every object key (for example basalt/); a file is kept at <prefix><applicationId>/<name>.' },
  metrics: { flag: 'metrics', env: 'BASALT_METRICS', type: 'boolean', default: false, doc: 'Serve GET /metrics (Prometheus text format: requests and latency per route family, database pools, job queue). Off by default; see --metrics-token.' },
  metricsToken: { flag: 'metrics-token', env: 'BASALT_METRICS_TOKEN', type: 'string', doc: 'With --metrics, the token GET /metrics requires as Authorization: Bearer <token> (401 without it, 403 with another). Without it, /metrics is open to whoever reaches the port: set one unless only a private network does.', secret: true },
  queueConcurrency: { flag: 'queue-concurrency', env: 'BASALT_QUEUE_CONCURRENCY', type: 'integer', default: 8, doc: 'Queued jobs (mail) this process runs at once, over all apps; 0 runs none in this process (others on the same PostgreSQL do).' },
  queueSweepInterval: { flag: 'queue-sweep-interval', env: 'BASALT_QUEUE_SWEEP_INTERVAL', type: 'integer', default: 10000, min: 100, doc: 'Milliseconds between checks of every app for due retries and for jobs whose lease ran out (new jobs are announced at once and do not wait for it); at least 100.' },
  queueLeaseTime: { flag: 'queue-lease-time', env: 'BASALT_QUEUE_LEASE_TIME', type: 'integer', default: 30000, min: 1000, doc: 'Milliseconds a taken job stays this process\'s; renewed while it runs. A process that dies leaves its jobs to another after this; at least 1000.' },
  queueRetryDelay: { flag: 'queue-retry-delay', env: 'BASALT_QUEUE_RETRY_DELAY', type: 'integer', default: 1000, min: 1, doc: 'Milliseconds before the first retry of a failed job; each later retry waits about twice as long (with jitter, at most an hour); at least 1.' },
  queueMaxAttempts: { flag: 'queue-max-attempts', env: 'BASALT_QUEUE_MAX_ATTEMPTS', type: 'integer', default: 8, min: 1, doc: 'Attempts of a job before it is kept as dead (listed by GET /1/queue/jobs?status=dead), where its type sets none; at least 1.' },
  webhookTimeout: { flag: 'webhook-timeout', env: 'BASALT_WEBHOOK_TIMEOUT', type: 'integer', default: 30000, min: 100, doc: 'Milliseconds a webhook call may take, from connecting to the last byte of the reply, before it fails (a function hook answers 141, a queued after-hook is retried); at least 100.' },
  apnsUrl: { flag: 'apns-url', env: 'BASALT_APNS_URL', type: 'url', default: 'https://api.push.apple.com', doc: 'APNs endpoint for push credentials with production: true (HTTP/2).' },
  apnsSandboxUrl: { flag: 'apns-sandbox-url', env: 'BASALT_APNS_SANDBOX_URL', type: 'url', default: 'https://api.sandbox.push.apple.com', doc: 'APNs endpoint for push credentials without production: true (development builds).' },
  fcmUrl: { flag: 'fcm-url', env: 'BASALT_FCM_URL', type: 'url', default: 'https://fcm.googleapis.com', doc: 'FCM HTTP v1 API; messages go to <url>/v1/projects/<project_id>/messages:send.' },
  fcmTokenUrl: { flag: 'fcm-token-url', env: 'BASALT_FCM_TOKEN_URL', type: 'url', default: 'https://oauth2.googleapis.com/token', doc: 'OAuth2 token endpoint that turns a Firebase service account into an access token (in place of the account\'s token_uri).' },
  wnsTokenUrl: { flag: 'wns-token-url', env: 'BASALT_WNS_TOKEN_URL', type: 'url', default: 'https://login.live.com/accesstoken.srf', doc: 'OAuth endpoint that gives WNS access tokens for an app\'s push.windows credentials.' },
  wnsChannelHosts: { flag: 'wns-channel-hosts', env: 'BASALT_WNS_CHANNEL_HOSTS', type: 'string', default: 'notify.windows.com', doc: 'Comma-separated host names (each also matching its subdomains) that a Windows channel URI (the deviceToken) may point at; the WNS access token is sent only there.' },
  pushCaFile: { flag: 'push-ca-file', env: 'BASALT_PUSH_CA_FILE', type: 'string', doc: 'PEM file of certificate authorities trusted for the push networks\' endpoints besides the usual ones (a TLS-inspecting proxy, or local test servers).' },
  pushConcurrency: { flag: 'push-concurrency', env: 'BASALT_PUSH_CONCURRENCY', type: 'integer', default: 100, min: 1, doc: 'Requests in flight at once to one delivery network for one app (HTTP/2 streams for APNs); at least 1.' },
  pushPageSize: { flag: 'push-page-size', env: 'BASALT_PUSH_PAGE_SIZE', type: 'integer', default: 500, min: 1, doc: 'Installations a push job reads and sends at once (one queued job per page, read in objectId order): memory stays at one page whatever the audience; at least 1.' },
  testPushNetworks: { flag: 'test-push-networks', env: 'BASALT_TEST_PUSH_NETWORKS', type: 'string', doc: 'FOR TESTS ONLY, never in production: path of an ES module whose default export is called with an app\'s record and returns its push delivery networks (src/push/networks/network.ts), in place of the real ones. The server logs a warning at start when it is set.' },
  cloud: { flag: 'cloud', env: 'BASALT_CLOUD', type: 'string', doc: 'Cloud code entry file of the default app (Parse Server\'s `cloud` option): a CommonJS main.js, or an ES module (.mjs, or a package of "type": "module"); docs/cloud-code.md.' },
  cloudDir: { flag: 'cloud-dir', env: 'BASALT_CLOUD_DIR', type: 'string', doc: 'Folder of every other app\'s cloud code, each at <cloud-dir>/<applicationId>/main.js (or main.mjs); an app without that file has no cloud code.' },
  cloudWatch: { flag: 'cloud-watch', env: 'BASALT_CLOUD_WATCH', type: 'boolean', default: false, doc: 'Reload an app\'s cloud code when its entry file changes: new calls go to a new worker, calls in flight finish on the old one.' },
  cloudMemoryMb: { flag: 'cloud-memory-mb', env: 'BASALT_CLOUD_MEMORY_MB', type: 'integer', default: 256, min: 16, doc: 'Heap limit in megabytes of each app\'s cloud code worker; a worker past it is restarted and its calls in flight fail with 141; at least 16.' },
  cloudTimeout: { flag: 'cloud-timeout', env: 'BASALT_CLOUD_TIMEOUT', type: 'integer', default: 15000, min: 10, doc: 'Milliseconds a cloud function or trigger may run; past it the call fails with 141 and the app\'s worker is restarted; at least 10.' },
  autoIndexes: { flag: 'auto-indexes', env: 'BASALT_AUTO_INDEXES', type: 'boolean', default: true, doc: 'Create a one-field index by itself when an app\'s queries keep scanning a large class for want of one (see the auto-index options; an app turns it off for itself with the setting autoIndexes: false).' },
  autoIndexScans: { flag: 'auto-index-scans', env: 'BASALT_AUTO_INDEX_SCANS', type: 'integer', default: 50, min: 1, doc: 'Scanning queries on a class larger than the app\'s rateLimits.scanWarningRows (10,000 by default) that need the same field, within --auto-index-window, after which its automatic index is made (each process counts its own); at least 1.' },
  autoIndexWindow: { flag: 'auto-index-window', env: 'BASALT_AUTO_INDEX_WINDOW', type: 'integer', default: 600000, min: 1000, doc: 'Milliseconds in which --auto-index-scans scans must come; at least 1000.' },
  autoIndexMaxPerClass: { flag: 'auto-index-max-per-class', env: 'BASALT_AUTO_INDEX_MAX_PER_CLASS', type: 'integer', default: 5, doc: 'Automatic indexes a class may have; past it, none is made and the scans stay listed by GET /1/scans.' },
  autoIndexUnusedDays: { flag: 'auto-index-unused-days', env: 'BASALT_AUTO_INDEX_UNUSED_DAYS', type: 'integer', default: 30, doc: 'An automatic index that no query has read this many days after its creation is reported unused by GET /1/scans (PostgreSQL only; 0: as soon as it is made and not read).' },
  testWriteObserver: { flag: 'test-write-observer', env: 'BASALT_TEST_WRITE_OBSERVER', type: 'string', doc: 'FOR TESTS AND EXTENSION AUTHORS ONLY, never in production: path of an ES module whose default export is called once at start with the write pipeline\'s observer registry (`on(point, className, observer)`, docs/architecture.md "The write pipeline"); its observers see and may change or refuse every write. The server logs a warning at start when it is set.' },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

type ValueOf<S extends OptionSpec> = S['type'] extends 'integer' ? number : S['type'] extends 'boolean' ? boolean : string;

/** The loaded configuration: options with a default are always present. */
export type Config = {
  readonly [K in OptionName as (typeof OPTIONS)[K] extends { default: unknown } ? K : never]: ValueOf<(typeof OPTIONS)[K]>;
} & {
  readonly [K in OptionName as (typeof OPTIONS)[K] extends { default: unknown } ? never : K]?: ValueOf<(typeof OPTIONS)[K]>;
};
