import type { Logger } from 'pino';
import type { AppRegistry } from '../apps/registry.ts';
import type { AccountService } from '../apps/accounts.ts';
import type { Backend } from '../sql/backend.ts';
import type { Config } from '../config/schema.ts';

/** The services the HTTP edge is wired to (built once in src/server.ts). */
export interface HttpDeps {
  readonly config: Config;
  readonly backend: Backend;
  readonly apps: AppRegistry;
  readonly accounts: AccountService;
  readonly logger: Logger;
}
