import v8 from 'node:v8';
import pino from 'pino';
import { loadConfig, ConfigError } from './config/load.ts';
import { helpText } from './config/help.ts';
import { createServer } from './server.ts';
import type { BootstrapReport } from './apps/bootstrap.ts';

/** The CLI entry and the only module with side effects. */
async function main(): Promise<void> {
  // Patterns from clients and app owners ($regex on SQLite, password patterns) run in V8's
  // backtracking engine in this process. With this flag, a pattern that backtracks past V8's
  // bound (`^(a+)+$` on "aaa…!") is run again by V8's linear-time engine, so it cannot hold the
  // process. Patterns that engine cannot run (back-references, lookaround) keep backtracking.
  v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  let loaded;
  try {
    loaded = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`basalt: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (loaded.help) {
    process.stdout.write(helpText());
    return;
  }
  const { config } = loaded;
  const logger = pino({ level: config.logLevel });
  const server = await createServer(config, logger);
  const address = await server.http.listen(config.port, config.host);
  printFirstStart(server.bootstrap, dashboardUrl(config.publicUrl, address));
  logger.info({ address, database: server.backend.kind }, 'Basalt is listening');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeout);
    timer.unref();
    server.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** The URL a person opens: the public URL when set, else the listening address (any-address as localhost). */
function dashboardUrl(publicUrl: string | undefined, address: string): string {
  const base = publicUrl ?? address.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost');
  return `${base.replace(/\/$/, '')}/dashboard`;
}

/** Keys and credentials are printed once, when they are created; they are kept in the database. */
function printFirstStart(report: BootstrapReport, dashboardUrl: string): void {
  const lines: string[] = [];
  if (report.createdAdmin) {
    lines.push('Admin account created (for /1/apps and the dashboard):');
    lines.push(`  email:        ${report.createdAdmin.email}`);
    lines.push(`  password:     ${report.createdAdmin.password}`);
    lines.push(`  account key:  ${report.createdAdmin.accountKey}`);
    lines.push(`  dashboard:    ${dashboardUrl}  (sign in with this email and password)`);
  }
  if (report.createdApp) {
    const app = report.createdApp;
    lines.push(`App "${app.appName}" created:`);
    lines.push(`  application id:  ${app.applicationId}`);
    lines.push(`  REST API key:    ${app.keys.restKey}`);
    lines.push(`  client key:      ${app.keys.clientKey}`);
    lines.push(`  JavaScript key:  ${app.keys.javascriptKey}`);
    lines.push(`  Windows key:     ${app.keys.windowsKey}`);
    lines.push(`  master key:      ${app.keys.masterKey}`);
    lines.push(`  webhook key:     ${app.keys.webhookKey}`);
  }
  if (lines.length) {
    lines.push('These are shown only now; keep them safe.');
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`basalt: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
