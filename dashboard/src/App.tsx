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
const ConsolePage = lazy(() => import('./pages/console/ConsolePage.tsx').then((module) => ({ default: module.ConsolePage })));
const UsersPage = lazy(() => import('./pages/users/UsersPage.tsx').then((module) => ({ default: module.UsersPage })));
const SessionsPage = lazy(() => import('./pages/sessions/SessionsPage.tsx').then((module) => ({ default: module.SessionsPage })));
const RolesPage = lazy(() => import('./pages/roles/RolesPage.tsx').then((module) => ({ default: module.RolesPage })));
const InstallationsPage = lazy(() => import('./pages/installations/InstallationsPage.tsx').then((module) => ({ default: module.InstallationsPage })));
const FilesPage = lazy(() => import('./pages/files/FilesPage.tsx').then((module) => ({ default: module.FilesPage })));
const MailPage = lazy(() => import('./pages/mail/MailPage.tsx').then((module) => ({ default: module.MailPage })));
import { navigate, useRoute, type Route } from './router.ts';

/** The app pages of the top bar, each one path segment under the app. */
const APP_PAGES = [
  ['config', 'Config'],
  ['users', 'Users'],
  ['sessions', 'Sessions'],
  ['roles', 'Roles'],
  ['installations', 'Installations'],
  ['files', 'Files'],
  ['mail', 'Mail'],
  ['console', 'API console'],
] as const;

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
              {APP_PAGES.map(([page, label]) => (
                <span key={page}>
                  <span aria-hidden="true"> · </span>
                  <a href={`/dashboard/apps/${encodeURIComponent(current.applicationId)}/${page}`} onClick={(event) => { event.preventDefault(); navigate({ page, applicationId: current.applicationId }); }}>{label}</a>
                </span>
              ))}
            </>
          )}
        </nav>
        <span className="spacer" />
        {session.apps.length > 1 && (
          <select aria-label="Switch app" value={current?.applicationId ?? ''} onChange={(event) => navigate(switchedRoute(route, event.target.value))}>
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
          <BrowserPage key={route.applicationId} applicationId={route.applicationId} className={route.className} objectId={route.objectId} />
        ) : route.page === 'schema' ? (
          <SchemaPage key={`${route.applicationId}/${route.className}`} applicationId={route.applicationId} className={route.className} />
        ) : route.page === 'console' ? (
          <ConsolePage key={route.applicationId} applicationId={route.applicationId} />
        ) : route.page === 'users' ? (
          <UsersPage key={route.applicationId} applicationId={route.applicationId} />
        ) : route.page === 'sessions' ? (
          <SessionsPage key={route.applicationId} applicationId={route.applicationId} />
        ) : route.page === 'roles' ? (
          <RolesPage key={route.applicationId} applicationId={route.applicationId} />
        ) : route.page === 'installations' ? (
          <InstallationsPage key={route.applicationId} applicationId={route.applicationId} />
        ) : route.page === 'files' ? (
          <FilesPage key={route.applicationId} applicationId={route.applicationId} />
        ) : route.page === 'mail' ? (
          <MailPage key={route.applicationId} applicationId={route.applicationId} />
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

/** The same page of another app; a class page falls back to that app's class list. */
function switchedRoute(route: Route, applicationId: string): Route {
  if (route.page === 'apps') return { page: 'apps', applicationId };
  if (route.page === 'sessions') return { page: 'sessions', applicationId };
  if (route.page === 'config' || route.page === 'console' || route.page === 'users' || route.page === 'roles') return { page: route.page, applicationId };
  if (route.page === 'installations' || route.page === 'files' || route.page === 'mail') return { page: route.page, applicationId };
  return { page: 'browser', applicationId };
}
