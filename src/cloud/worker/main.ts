import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import type { FromWorker, ToWorker, WorkerSetup } from '../protocol.ts';
import { Parse, sdk } from './sdk.ts';
import { installCloudApi } from './cloud-api.ts';
import { CallFailure, routeConsole, runFunction, runJob, runTrigger, type LogSink } from './calls.ts';
import { runRequestTrigger } from './request-calls.ts';

/**
 * One app's cloud code, in a worker thread of its own (src/cloud/host.ts starts it): the global
 * `Parse` is the official SDK set up as this app with its master key and this server's loopback
 * URL; `Parse.Cloud` has Parse Server's registration API; the code is loaded from its real path,
 * so its own folder and node_modules resolve. Then calls are answered one message each.
 */
const setup = workerData as WorkerSetup;
const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);

sdk.initialize(setup.applicationId, setup.javascriptKey, setup.masterKey);
if (setup.serverUrl) sdk.serverURL = setup.serverUrl;
// Parse Server's setting for cloud code: two copies of one object (object, original) stay apart.
(Parse.Object as unknown as { disableSingleInstance(): void }).disableSingleInstance();
(globalThis as Record<string, unknown>).Parse = Parse;
const defined = installCloudApi(Parse.Cloud as unknown as Record<string, unknown>);
const sink: LogSink = (level, kind, name, message) => post({ t: 'log', level, kind, name, message });
routeConsole(sink);
// A promise the code forgot (an afterSave's unawaited save) is logged, as Parse Server's process
// would; it does not end the worker and the calls it runs. A thrown exception does (and is restarted).
process.on('unhandledRejection', (reason) => sink('error', 'unhandledRejection', '', reason instanceof Error ? reason.message : String(reason)));

port.on('message', (message: ToWorker) => {
  if (message.t === 'serverUrl') {
    sdk.serverURL = message.url;
    return;
  }
  const answer =
    message.t === 'function' ? runFunction(defined, sink, message.name, message.request)
    : message.t === 'trigger' ? runTrigger(defined, sink, message.name, message.request)
    : message.t === 'job' ? runJob(defined, sink, message.name, message.request, (text) => post({ t: 'jobMessage', id: message.id, message: text }))
    : runRequestTrigger(defined, sink, message.name, message.request);
  answer.then(
    (value) => post({ t: 'done', id: message.id, value }),
    (error: unknown) => {
      const failure = error instanceof CallFailure ? error : new CallFailure(Parse.Error.SCRIPT_FAILED, String(error));
      post({ t: 'failed', id: message.id, code: failure.code, message: failure.message });
    },
  );
});

/**
 * CommonJS (main.js) or an ES module (.mjs, or a package of "type": "module"): `import()` of the
 * real path loads either as Node would run it, with `require` and `import` resolving from the
 * code's own folder and node_modules.
 */
async function load(entry: string): Promise<void> {
  await import(pathToFileURL(entry).href);
}

try {
  await load(setup.entry);
  post({ t: 'ready', registered: defined.registered() });
} catch (error) {
  // Said in so many words: a rejection here would only reach the unhandledRejection logger.
  post({ t: 'loadFailed', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
}
