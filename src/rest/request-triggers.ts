/** The trigger points outside the write pipeline: the login events and queries (docs/cloud-code.md). */
export type RequestPoint =
  | 'beforeLogin' | 'afterLogin' | 'afterLogout' | 'beforeFind' | 'afterFind'
  | 'beforeSaveFile' | 'afterSaveFile' | 'beforeDeleteFile' | 'afterDeleteFile';

/** The class name file triggers are registered under (Parse Server's). */
export const FILE_CLASS = '@File';

/** What a trigger of a request receives: Parse Server's request fields, as wire JSON. */
export interface RequestTriggerCall {
  readonly className: string;
  /** The user of a login, the session of a logout; absent for queries. */
  readonly object?: Record<string, unknown>;
  /** beforeFind: the query as the client sent it (`where`, `order`, `limit`, …). */
  readonly query?: Record<string, unknown>;
  readonly count?: boolean;
  readonly isGet?: boolean;
  /** afterFind: the objects found. */
  readonly objects?: readonly Record<string, unknown>[];
  /** File triggers: the file (its stored name and URL once it is stored), and its size when known. */
  readonly file?: { readonly name: string; readonly url?: string; readonly contentType?: string };
  readonly fileSize?: number | null;
  readonly user: string | null;
  readonly master: boolean;
  readonly installationId: string | null;
  readonly ip: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Runs a trigger; fails with the error the client is to get. Its answer depends on the point. */
export type RequestTrigger = (call: RequestTriggerCall) => Promise<unknown>;

/**
 * The per-app triggers of requests (cloud code registers them): an app without any pays one size
 * check per login or query. Spec 2.7: the Session class has no query triggers.
 */
export class RequestTriggers {
  private readonly triggers = new Map<string, RequestTrigger>();

  on(point: RequestPoint, className: string, trigger: RequestTrigger): void {
    this.triggers.set(`${point}.${className}`, trigger);
  }

  of(point: RequestPoint, className: string): RequestTrigger | undefined {
    if (this.triggers.size === 0) return undefined;
    if (className === '_Session' && point !== 'afterLogout') return undefined;
    return this.triggers.get(`${point}.${className}`);
  }
}
