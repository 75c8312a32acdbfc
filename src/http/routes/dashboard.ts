import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpDeps } from '../deps.ts';
import { noEndpoint } from '../errors.ts';
import type { Answer, EdgeRoute } from '../edge/types.ts';
import type { EdgeRequest } from '../edge/request.ts';

/** Where `npm run build` puts the dashboard: two levels above this file in src/ and in dist/ alike. */
const BUILT_DASHBOARD = fileURLToPath(new URL('../../../dashboard/dist', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The page's own policy: scripts and styles only from the server (Vite emits no inline script),
 * API calls only to it; images may come from a files host (filesURL) or be data: previews.
 */
const PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https: http:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * GET /dashboard and below: the built dashboard (docs/dashboard.md). Files under `assets/` carry a
 * content hash in their names, so they are cached for a year; index.html is revalidated every
 * time, so a new build is seen at once. Any other path is a page of the single-page app
 * (`/dashboard/apps/<applicationId>`) and answers index.html. GET / in a browser goes there.
 */
export function dashboardRoutes(deps: HttpDeps): EdgeRoute[] {
  const root = resolve(deps.config.dashboardDir ?? BUILT_DASHBOARD);

  const home = (request: EdgeRequest): Answer => {
    // JSON clients keep the answer of a path with no endpoint; only a browser is sent on.
    if (!acceptsHtml(request)) return notFound(request);
    return { status: 302, headers: { Location: '/dashboard', 'Cache-Control': 'no-store' } };
  };

  const serve = async (request: EdgeRequest): Promise<Answer> => {
    const segments = pathSegments(request.url);
    if (!segments) return notFound(request);
    const index = resolve(root, 'index.html');
    if (!(await isFile(index))) return notBuilt(root);
    const file = resolve(root, ...segments);
    // pathSegments refused `..`; this is the last guard that nothing outside the folder is read.
    if (segments.length > 0 && file.startsWith(root + sep) && (await isFile(file))) {
      const cache = segments[0] === 'assets' ? 'public, max-age=31536000, immutable' : 'no-cache';
      return sendFile(file, cache);
    }
    // A missing asset is a stale page asking for an old build's file: HTML in its place would be
    // run as a script.
    if (segments[0] === 'assets') return notFound(request);
    return sendFile(index, 'no-cache');
  };
  return [
    { method: 'GET', path: '/', handler: home },
    { method: 'GET', path: '/dashboard', handler: serve },
    { method: 'GET', path: '/dashboard/*', handler: serve },
  ];
}

function notFound(request: EdgeRequest): Answer {
  return { status: 404, body: noEndpoint(request.method, request.url).toJSON() };
}

function acceptsHtml(request: EdgeRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.toLowerCase().includes('text/html');
}

/**
 * The decoded segments after /dashboard, or null for a path that could leave the folder (`..`,
 * `.`, a backslash or a NUL in a segment, an undecodable escape).
 */
export function pathSegments(url: string): string[] | null {
  const path = url.split('?')[0]!.slice('/dashboard'.length);
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || /[\\/\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function sendFile(file: string, cache: string): Promise<Answer> {
  const body = await readFile(file);
  const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': cache, 'X-Content-Type-Options': 'nosniff' };
  if (type.startsWith('text/html')) Object.assign(headers, { 'Content-Security-Policy': PAGE_POLICY, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' });
  return { status: 200, body, headers };
}

/** A fresh clone that skipped the build: say what to run rather than fail. */
function notBuilt(root: string): Answer {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Dashboard not built · Basalt</title>
<style>body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; } code { background: #eee; padding: 0 .2rem; }</style>
</head>
<body>
<h1>The dashboard is not built</h1>
<p>This server found no <code>index.html</code> in <code>${escapeHtml(root)}</code>.</p>
<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds first), then reload this page. The API at <code>/1/</code> works without it.</p>
</body>
</html>
`;
  return {
    status: 503,
    body: html,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
