import type { MailMessage } from './port.ts';

/** Header text must stay on one line: an app name is the app owner's free text. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').trim();
}

/** Spec 3.1 / 6: the confirmation mail for a new or changed address. */
export function verificationMail(appName: string, to: string, link: string): MailMessage {
  const app = oneLine(appName);
  return {
    to,
    subject: `Confirm your email address for ${app}`,
    text: [`Hello,`, ``, `Please confirm that ${to} is your email address for ${app} by opening this link:`, ``, link, ``, `If you did not ask for this, you can ignore this mail.`, ``].join('\n'),
  };
}

/** Spec 4.3 / 6: the mail of POST /1/requestPasswordReset. */
export function passwordResetMail(appName: string, to: string, link: string): MailMessage {
  const app = oneLine(appName);
  return {
    to,
    subject: `Reset your password for ${app}`,
    text: [`Hello,`, ``, `Someone asked to reset the password of the ${app} account with the address ${to}.`, `To choose a new password, open this link:`, ``, link, ``, `If you did not ask for this, you can ignore this mail; your password stays as it is.`, ``].join('\n'),
  };
}
