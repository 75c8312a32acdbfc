import { lazy, Suspense, useCallback, useState } from 'react';
import type { AccountCredentials } from './api/client.ts';
import type { App as AppInfo } from './api/types.ts';
import { SessionProvider, useSession } from './session.tsx';
import { SignIn } from './pages/signin/SignIn.tsx';
import { AppsPage } from './pages/apps/AppsPage.tsx';
import { BrowserPage } from './pages/browser/BrowserPage.tsx';

// Pages opened less often than the data browser are their own chunks, read when first shown.
const ConfigPage = lazy(() => import('./pages/config/ConfigPage.tsx').then((module) => ({ default: module.ConfigPage })));
const SchemaPage = lazy(() => import('./pages/schema/SchemaPage.tsx').then((module) => ({ default: module.SchemaPage })));
import { navigate, useRoute } from './router.ts';

export function App() {
  const [signedIn, setSignedIn] = useState<{ credentials: AccountCredentials; apps: readonly AppInfo[] } | null>(null);
  // Dropping the state is the whole of signing out: the credentials and keys were nowhere else.
  const signOut = useCallback(() => setSignedIn(null), []);
  if (!signedIn) return <SignIn onSignedIn={(credentials, apps) => setSignedIn({ credentials, apps })} />;
  return (
    <SessionProvider credentials={signedIn.credentials} apps={signedIn.apps} onSignOut={signOut}>
      <Shell />
    </SessionProvider>
  );
}

function Shell() {
  const session = useSession();
  const route = useRoute();
  const current = route.applicationId ? session.apps.find((app) => app.applicationId === route.applicationId) : undefined;
  return (
    <div className="shell">
      <header className="topbar">
        <strong className="brand">Basalt</strong>
        <nav aria-label="Main">
          <a href="/dashboard" onClick={(event) => { event.preventDefault(); navigate({ page: 'apps' }); }}>Apps</a>
          {current && (
            <>
              <span aria-hidden="true"> / </span>
              <a href={`/dashboard/apps/${encodeURIComponent(current.applicationId)}`} onClick={(event) => { event.preventDefault(); navigate({ page: 'apps', applicationId: current.applicationId }); }}>{current.appName}</a>
              <span aria-hidden="true"> / </span>
              <a href={`/dashboard/apps/${encodeURIComponent(current.applicationId)}/browser`} onClick={(event) => { event.preventDefault(); navigate({ page: 'browser', applicationId: current.applicationId }); }}>Data</a>
              <span aria-hidden="true"> · </span>
              <a href={`/dashboard/apps/${encodeURIComponent(current.applicationId)}/config`} onClick={(event) => { event.preventDefault(); navigate({ page: 'config', applicationId: current.applicationId }); }}>Config</a>
            </>
          )}
        </nav>
        <span className="spacer" />
        {session.apps.length > 1 && (
          <select aria-label="Switch app" value={current?.applicationId ?? ''} onChange={(event) => navigate(route.page === 'apps' ? { page: 'apps', applicationId: event.target.value } : route.page === 'config' ? { page: 'config', applicationId: event.target.value } : { page: 'browser', applicationId: event.target.value })}>
            {!current && <option value="">Switch app…</option>}
            {session.apps.map((app) => (
              <option key={app.applicationId} value={app.applicationId}>{app.appName}</option>
            ))}
          </select>
        )}
        <span className="account">{session.email}</span>
        <button type="button" onClick={session.signOut}>Sign out</button>
      </header>
      <main>
        <Suspense fallback={<p className="muted">Loading…</p>}>
        {route.page === 'browser' ? (
          <BrowserPage key={route.applicationId} applicationId={route.applicationId} className={route.className} />
        ) : route.page === 'schema' ? (
          <SchemaPage key={`${route.applicationId}/${route.className}`} applicationId={route.applicationId} className={route.className} />
        ) : route.page === 'config' ? (
          <ConfigPage key={route.applicationId} applicationId={route.applicationId} />
        ) : (
          <AppsPage selected={route.applicationId} />
        )}
        </Suspense>
      </main>
    </div>
  );
}
