import { isApiError } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { AppHandle } from '../../apps/registry.ts';
import { resendVerificationEmail, verifyEmail } from '../../rest/users/email-verification.ts';
import { resetLinkIsValid, resetPassword } from '../../rest/users/password-reset.ts';
import { takeAuthAttempt } from '../../rest/users/common.ts';
import type { HttpDeps } from '../deps.ts';
import { userOptions } from '../context.ts';
import type { Answer, EdgeRoute } from '../edge/types.ts';
import type { EdgeRequest } from '../edge/request.ts';

/**
 * The pages that emailed links open (decisions.md "Email verification and password reset"):
 * GET /apps/<applicationId>/verify_email?token=… verifies the address at once, like Parse's; its
 * POST sends a new link. GET /apps/<applicationId>/reset_password?token=… shows a form for the new
 * password; its POST sets it. They need no app key: the token in the link is the credential.
 */
export function userPageRoutes(deps: HttpDeps): EdgeRoute[] {
  const verify = async (request: EdgeRequest): Promise<Answer> => {
    const app = await appOf(deps, request);
    if (!app) return noApp();
    const email = await verifyEmail(app, request.query.token);
    if (email) return page(200, app, 'Email address verified', `<p>Thank you: <strong>${escape(email)}</strong> is now verified.</p>`);
    return page(400, app, 'This link is not valid', `<p>This link may have been used already, or it has expired.</p>${resendForm(app)}`);
  };

  const resend = async (request: EdgeRequest): Promise<Answer> => {
    const app = await appOf(deps, request);
    if (!app) return noApp();
    try {
      await takeAuthAttempt({ app, clientIp: request.ip, userOptions: userOptions(deps) });
    } catch (error) {
      if (isApiError(error)) return page(error.status, app, 'Please wait', `<p>${escape(error.message)}</p>`);
      throw error;
    }
    await resendVerificationEmail({ app, log: request.log, userOptions: userOptions(deps) }, field(request.body, 'email'));
    // The same answer whether or not the address is known, so the form cannot probe for users.
    return page(200, app, 'Check your mail', '<p>If an account with this address still needs to be verified, a new link is on its way.</p>');
  };

  const resetPage = async (request: EdgeRequest): Promise<Answer> => {
    const app = await appOf(deps, request);
    if (!app) return noApp();
    const token = field(request.query, 'token');
    if (!(await resetLinkIsValid(app, token))) return invalidResetLink(app);
    return page(200, app, 'Choose a new password', resetForm(app, token));
  };

  const reset = async (request: EdgeRequest): Promise<Answer> => {
    const app = await appOf(deps, request);
    if (!app) return noApp();
    const token = field(request.body, 'token');
    const password = field(request.body, 'new_password');
    const confirmation = field(request.body, 'confirm_password');
    if (confirmation !== undefined && confirmation !== password) {
      return page(400, app, 'Choose a new password', resetForm(app, token, 'The two passwords are not the same.'));
    }
    const outcome = await resetPassword(app, token, password);
    if (outcome.ok) return page(200, app, 'Password changed', '<p>Your password has been changed. You can now log in with the new one.</p>');
    if (outcome.reason === 'password') return page(400, app, 'Choose a new password', resetForm(app, token, outcome.message));
    return invalidResetLink(app);
  };

  // Browsers post forms URL-encoded ('form'); elsewhere every body is JSON.
  return [
    // No HEAD: a mail scanner's HEAD request must not use up the link.
    { method: 'GET', path: '/apps/:appId/verify_email', handler: verify, head: false },
    { method: 'POST', path: '/apps/:appId/verify_email', handler: resend, body: 'form' },
    { method: 'GET', path: '/apps/:appId/reset_password', handler: resetPage },
    { method: 'POST', path: '/apps/:appId/reset_password', handler: reset, body: 'form' },
  ];
}

function noApp(): Answer {
  return page(404, null, 'Not found', '<p>There is no such app.</p>');
}

async function appOf(deps: HttpDeps, request: EdgeRequest): Promise<AppHandle | null> {
  const record = await deps.apps.find(request.params.appId!);
  return record ? deps.apps.handle(record) : null;
}

function field(source: unknown, name: string): string | undefined {
  const value = isPlainObject(source) ? source[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function invalidResetLink(app: AppHandle): Answer {
  return page(400, app, 'This link is not valid', '<p>This link may have been used already, or it has expired. You can ask the app for a new one.</p>');
}

function resetForm(app: AppHandle, token: string | undefined, problem?: string): string {
  const action = `/apps/${encodeURIComponent(app.record.applicationId)}/reset_password`;
  return `${problem ? `<p class="problem">${escape(problem)}</p>` : ''}
<form method="post" action="${escape(action)}">
  <input type="hidden" name="token" value="${escape(token ?? '')}">
  <label>New password <input type="password" name="new_password" autocomplete="new-password" required></label>
  <label>Repeat it <input type="password" name="confirm_password" autocomplete="new-password" required></label>
  <button type="submit">Change password</button>
</form>`;
}

function resendForm(app: AppHandle): string {
  const action = `/apps/${encodeURIComponent(app.record.applicationId)}/verify_email`;
  return `<form method="post" action="${escape(action)}">
  <label>Your email address <input type="email" name="email" autocomplete="email" required></label>
  <button type="submit">Send a new link</button>
</form>`;
}

/**
 * A small page. The token is in the page's own URL, so no referrer may leave it; no script runs,
 * and no other site may frame the form.
 */
function page(status: number, app: AppHandle | null, title: string, body: string): Answer {
  const appName = app ? escape(app.record.appName) : 'Basalt';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · ${appName}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
label { display: block; margin: 0 0 1rem; } input { display: block; width: 100%; padding: .4rem; box-sizing: border-box; }
.problem { color: #a00; } .app { color: #666; }
</style>
</head>
<body>
<p class="app">${appName}</p>
<h1>${escape(title)}</h1>
${body}
</body>
</html>
`;
  return {
    status,
    body: html,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    },
  };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
