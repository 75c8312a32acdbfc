import { statSync, watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import type { FunctionCall, FunctionRunner, FunctionSource } from '../rest/functions.ts';
import type { ScriptLogLine, ScriptLogSource } from '../rest/script-log.ts';
import type { WriteHooks } from '../rest/write/hooks.ts';
import type { JobSource } from '../rest/jobs/source.ts';
import type { AppRecord } from '../apps/types.ts';
import { AppWorker, type HostLimits } from './host.ts';
import { entryOf, type CodeLocations } from './locate.ts';
import { TriggerAttachment } from './triggers.ts';

export interface CloudOptions extends CodeLocations, HostLimits {
  readonly watch: boolean;
}

/** What cloud code needs of an opened app. */
export interface OpenedApp {
  readonly record: AppRecord;
  readonly hooks: WriteHooks;
}

/**
 * Cloud code of every app (docs/cloud-code.md): one worker thread per app that has code, started
 * when the app is opened, its functions a source of POST /1/functions (rank 1, after webhooks),
 * its save and delete triggers observers of the app's write pipeline, its log lines kept for
 * GET /1/scriptlog.
 */
export class CloudCode implements FunctionSource, ScriptLogSource, JobSource {
  private readonly workers = new Map<string, AppWorker>();
  private readonly watchers: FSWatcher[] = [];
  private defaultAppId: string | null = null;
  private serverUrl: string | null = null;
  /** Restarts of workers that stopped on their own (crash, memory, process.exit, time limit). */
  restarts = 0;

  /** Stops the start when an option names a file or folder that is not there: better than apps that quietly have no code. */
  constructor(private readonly options: CloudOptions, private readonly logger: Logger) {
    if (options.defaultEntry && !statSync(options.defaultEntry, { throwIfNoEntry: false })?.isFile()) throw new Error(`--cloud: there is no file at ${options.defaultEntry}`);
    if (options.dir && !statSync(options.dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--cloud-dir: there is no folder at ${options.dir}`);
  }

  /** The default app is the one `--cloud` belongs to (known once the server has bootstrapped). */
  setDefaultApp(applicationId: string | null): void {
    this.defaultAppId = applicationId;
  }

  /** This server's loopback API root, known once it listens: the SDK in every worker calls it. */
  setServerUrl(url: string): void {
    this.serverUrl = url;
    for (const worker of this.workers.values()) worker.setServerUrl(url);
  }

  private triggerHookOf: (applicationId: string, className: string, triggerName: string) => boolean = () => false;

  /** Where a trigger hook of the same class and name is found: it then runs in place of cloud code's trigger. */
  yieldTriggersTo(hasTriggerHook: (applicationId: string, className: string, triggerName: string) => boolean): void {
    this.triggerHookOf = hasTriggerHook;
  }

  /** Called when an app is opened: starts its worker, if it has code, and attaches its triggers. */
  async attach(app: OpenedApp): Promise<void> {
    const { applicationId } = app.record;
    if (this.workers.has(applicationId)) return;
    const entry = entryOf(this.options, applicationId, applicationId === this.defaultAppId);
    if (!entry) return;
    const log = this.logger.child({ module: 'cloud' });
    let triggers: TriggerAttachment | null = null;
    const worker = new AppWorker(
      { applicationId, javascriptKey: app.record.keys.javascriptKey, masterKey: app.record.keys.masterKey, entry },
      this.options,
      log,
      () => this.restarts++,
      (registered) => triggers?.attach(registered),
    );
    triggers = new TriggerAttachment(app.hooks, worker, (className, triggerName) => this.triggerHookOf(applicationId, className, triggerName));
    this.workers.set(applicationId, worker);
    if (this.serverUrl) worker.setServerUrl(this.serverUrl);
    if (this.options.watch) this.watch(entry, worker);
    try {
      await worker.start();
      log.info({ app: applicationId, entry, ...worker.registered }, 'cloud code loaded');
    } catch {
      // Logged by the worker; its calls answer 141 with the reason until the code loads.
    }
  }

  runnerOf(applicationId: string, functionName: string): FunctionRunner | null {
    const worker = this.workers.get(applicationId);
    if (!worker || (!worker.broken && !worker.functions.has(functionName))) return null;
    return (call: FunctionCall) =>
      worker.call({
        t: 'function',
        name: functionName,
        request: {
          params: call.params,
          user: call.user ? { objectId: call.user, sessionToken: call.sessionToken } : null,
          master: call.master,
          installationId: call.installationId,
          ip: call.ip,
          headers: call.headers ?? {},
          context: contextOf(call.headers),
        },
      });
  }

  async jobNames(applicationId: string): Promise<readonly string[]> {
    const registered = await this.workers.get(applicationId)?.loadedRegistration();
    return registered?.jobs ?? [];
  }

  async runJob(applicationId: string, jobName: string, params: Record<string, unknown>, onMessage: (message: string) => void): Promise<void> {
    const worker = this.workers.get(applicationId);
    if (!worker) throw new Error(`the app has no cloud code to run the job ${jobName}`);
    await worker.call({ t: 'job', name: jobName, request: { params } }, onMessage);
  }

  linesOf(applicationId: string): readonly ScriptLogLine[] {
    return this.workers.get(applicationId)?.log.all() ?? [];
  }

  close(): void {
    for (const watcher of this.watchers) watcher.close();
    for (const worker of this.workers.values()) worker.close();
    this.workers.clear();
  }

  /** `--cloud-watch`: a change of the entry file starts a new worker; a burst of events reloads once. */
  private watch(entry: string, worker: AppWorker): void {
    let timer: NodeJS.Timeout | null = null;
    const watcher = watch(entry, () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        worker.start().catch(() => {});
      }, 100);
    });
    watcher.unref();
    this.watchers.push(watcher);
  }
}

/** The caller's context for a function, Parse Server's `X-Parse-Cloud-Context` header: a JSON object, else none. */
function contextOf(headers: FunctionCall['headers']): Record<string, unknown> {
  const raw = headers?.['x-svc-cloud-context'] ?? headers?.['x-parse-cloud-context'];
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
