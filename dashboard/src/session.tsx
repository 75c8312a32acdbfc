import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { AccountApi, AppApi, type AccountCredentials } from './api/client.ts';
import type { App } from './api/types.ts';

/**
 * The signed-in account and the apps it sees, with their keys. All of it lives in this React
 * state only: a reload or a closed tab forgets it, and signing out drops it at once. Nothing is
 * written to localStorage, sessionStorage, IndexedDB or a cookie (docs/dashboard.md "Keys").
 */
interface Session {
  readonly account: AccountApi;
  readonly email: string;
  readonly apps: readonly App[];
  /** Replaces one app (after a change or a key rotation) or adds it. */
  remember(app: App): void;
  reloadApps(): Promise<void>;
  appApi(applicationId: string): AppApi | null;
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

export function SessionProvider(props: { credentials: AccountCredentials; apps: readonly App[]; onSignOut(): void; children: ReactNode }) {
  const [apps, setApps] = useState(props.apps);
  const account = useMemo(() => new AccountApi(props.credentials), [props.credentials]);
  const remember = useCallback((app: App) => {
    setApps((current) => (current.some((a) => a.applicationId === app.applicationId) ? current.map((a) => (a.applicationId === app.applicationId ? app : a)) : [...current, app]));
  }, []);
  const reloadApps = useCallback(async () => setApps(await account.listApps()), [account]);
  const session = useMemo<Session>(
    () => ({
      account,
      email: props.credentials.email,
      apps,
      remember,
      reloadApps,
      appApi: (applicationId) => {
        const app = apps.find((a) => a.applicationId === applicationId);
        return app && typeof app.masterKey === 'string' ? new AppApi(app.applicationId, app.masterKey) : null;
      },
      signOut: props.onSignOut,
    }),
    [account, apps, props.credentials.email, props.onSignOut, remember, reloadApps],
  );
  return <SessionContext.Provider value={session}>{props.children}</SessionContext.Provider>;
}
