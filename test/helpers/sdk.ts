import assert from 'node:assert/strict';
import { before } from 'node:test';
import Parse from 'parse/node';
import { eachBackend } from './each-backend.ts';
import type { AppClient } from './client.ts';
import { newUserApp } from './users.ts';
import type { Target } from './targets.ts';

/**
 * The official Parse JavaScript SDK (Node build) pointed at one Basalt app.
 *
 * The SDK is a singleton: keys, server URL, storage and the current user live in its CoreManager
 * and module state. Node's test runner gives each test file its own process, and the suites of
 * one file run one after another, so a suite takes the SDK over in its `before` hook and keeps it
 * until the next suite (the other backend) takes it over in turn.
 */
export { Parse };

/** A storage controller in memory, replaced per suite so no current user leaks across backends. */
function memoryStorage() {
  const items = new Map<string, string>();
  return {
    async: 0 as const,
    getItem: (path: string) => items.get(path) ?? null,
    setItem: (path: string, value: string) => void items.set(path, String(value)),
    removeItem: (path: string) => void items.delete(path),
    getAllKeys: () => [...items.keys()],
    clear: () => items.clear(),
  };
}

/** One call of the SDK to its REST controller: the verb, the path under `/1/`, the payload. */
export interface SdkRequest {
  readonly method: string;
  readonly path: string;
  readonly data: any;
}

/** Every REST call the SDK made since the current suite took it over, oldest first. */
export const sdkRequests: SdkRequest[] = [];

const rest = Parse.CoreManager.getRESTController();
Parse.CoreManager.setRESTController({
  ...rest,
  request(method: string, path: string, data?: any, options?: any) {
    sdkRequests.push({ method, path, data: data === undefined ? undefined : JSON.parse(JSON.stringify(data)) });
    return rest.request(method, path, data, options);
  },
});

/**
 * Points the SDK at `app`: its application id, JavaScript key and master key, the target's `/1`,
 * a fresh in-memory storage (so no current user or installation id carries over) and one attempt
 * per request (the SDK retries a 5xx answer up to five times with random delays; a test wants the
 * first answer).
 */
export function pointSdkAt(app: AppClient): void {
  Parse.User._clearCache();
  Parse.CoreManager.setStorageController(memoryStorage() as any);
  // The Node build takes the master key as a third argument (its typings omit it).
  (Parse as unknown as { initialize(appId: string, jsKey: string, masterKey: string): void }).initialize(app.app.applicationId, app.app.javascriptKey, app.app.masterKey);
  (Parse as unknown as { serverURL: string }).serverURL = `${app.target.url}/1`;
  Parse.CoreManager.set('REQUEST_ATTEMPT_LIMIT', 1);
  Parse.CoreManager.set('FORCE_REVOCABLE_SESSION', false);
  Parse.User.enableUnsafeCurrentUser();
  Parse.User._clearCache();
  (Parse.Config as unknown as { _clearCache(): void })._clearCache();
  (Parse.CoreManager.getInstallationController() as unknown as { _clearCache(): void })._clearCache();
  sdkRequests.length = 0;
}

/** Drops the current user on this side only (as a new process would), leaving its session alive. */
export function forgetCurrentUser(): void {
  Parse.CoreManager.setStorageController(memoryStorage() as any);
  Parse.User._clearCache();
}

export interface SdkSuite {
  /** The app the SDK talks to, for plain-HTTP checks with its keys. */
  readonly app: AppClient;
  readonly target: Target;
}

/**
 * `eachBackend` for SDK tests: a fresh app per backend (login rate limits off, as for the HTTP
 * user tests), the SDK pointed at it before the suite's tests run.
 */
export function eachBackendWithSdk(name: string, suite: (context: SdkSuite) => void, settings: Record<string, unknown> = {}): void {
  eachBackend(name, (target) => {
    let app: AppClient | undefined;
    const context: SdkSuite = {
      get app() {
        assert.ok(app, 'the app is created in the suite before hook');
        return app;
      },
      target,
    };
    before(async () => {
      app = await newUserApp(target, settings);
      pointSdkAt(app);
    });
    suite(context);
  });
}

/** Runs `action` and returns the ParseError it rejects with; fails when it resolves. */
export async function sdkError(action: () => Promise<unknown>): Promise<Parse.Error> {
  try {
    await action();
  } catch (error) {
    assert.ok(error instanceof Parse.Error, `expected a Parse.Error, got ${String(error)} ${(error as Error)?.stack ?? ''}`);
    return error;
  }
  assert.fail('expected the SDK call to fail');
}

/** Asserts that `action` fails with this ParseError code. */
export async function rejectsWithCode(action: () => Promise<unknown>, code: number, context = ''): Promise<Parse.Error> {
  const error = await sdkError(action);
  assert.equal(error.code, code, `${context} expected code ${code}, got ${error.code} ${error.message}`);
  return error;
}
