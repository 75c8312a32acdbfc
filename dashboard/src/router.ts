import { useEffect, useState } from 'react';

/** Pages are paths under /dashboard, so that a class or an app has a URL to share. */
const BASE = '/dashboard';

export type Route =
  | { readonly page: 'apps'; readonly applicationId?: string }
  | { readonly page: 'browser'; readonly applicationId: string; readonly className?: string; readonly objectId?: string }
  | { readonly page: 'config'; readonly applicationId: string }
  | { readonly page: 'console'; readonly applicationId: string }
  | { readonly page: 'sessions'; readonly applicationId: string }
  | { readonly page: 'users'; readonly applicationId: string }
  | { readonly page: 'roles'; readonly applicationId: string }
  | { readonly page: 'installations' | 'files' | 'mail'; readonly applicationId: string }
  | { readonly page: 'schema'; readonly applicationId: string; readonly className: string };

export function parseRoute(pathname: string): Route {
  const parts = pathname.slice(BASE.length).split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'apps' && parts[1]) {
    if (parts[2] === 'sessions') return { page: 'sessions', applicationId: parts[1] };
    if (parts[2] === 'schema' && parts[3]) return { page: 'schema', applicationId: parts[1], className: parts[3] };
    if (parts[2] === 'config' || parts[2] === 'console' || parts[2] === 'users' || parts[2] === 'roles') return { page: parts[2], applicationId: parts[1] };
    if (parts[2] === 'installations' || parts[2] === 'files' || parts[2] === 'mail') return { page: parts[2], applicationId: parts[1] };
    if (parts[2] === 'browser') return { page: 'browser', applicationId: parts[1], ...(parts[3] ? { className: parts[3] } : {}), ...(parts[3] && parts[4] ? { objectId: parts[4] } : {}) };
    return { page: 'apps', applicationId: parts[1] };
  }
  return { page: 'apps' };
}

export function routePath(route: Route): string {
  const app = route.applicationId ? `/apps/${encodeURIComponent(route.applicationId)}` : '';
  if (route.page === 'sessions') return `${BASE}${app}/sessions`;
  if (route.page === 'schema') return `${BASE}${app}/schema/${encodeURIComponent(route.className)}`;
  if (route.page === 'config' || route.page === 'console' || route.page === 'users' || route.page === 'roles') return `${BASE}${app}/${route.page}`;
  if (route.page === 'installations' || route.page === 'files' || route.page === 'mail') return `${BASE}${app}/${route.page}`;
  if (route.page === 'browser') return `${BASE}${app}/browser${route.className ? `/${encodeURIComponent(route.className)}${route.objectId ? `/${encodeURIComponent(route.objectId)}` : ''}` : ''}`;
  return `${BASE}${app}`;
}

/** Goes to a page; `search` (a class view's query) is pushed with it when given. */
export function navigate(route: Route, search?: string): void {
  const path = routePath(route);
  if (search !== undefined) {
    if (path + search !== location.pathname + location.search) history.pushState(null, '', path + search);
  } else if (path !== location.pathname) history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.pathname));
    addEventListener('popstate', changed);
    // A page's own effects run before this one and may have navigated already (a URL rewritten).
    changed();
    return () => removeEventListener('popstate', changed);
  }, []);
  return route;
}
