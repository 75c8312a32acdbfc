import { useMemo, useState } from 'react';
import type { OutboxMail } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { useCursorPages } from '../shared/useCursorPages.ts';

const PAGE = 50;

/** The app's outbox (GET /1/outbox): mail kept without SMTP settings, and mail that failed; newest first, one opened to read. */
export function MailPage(props: { applicationId: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const fetchPage = useMemo(() => (api ? (before: string) => api.outbox(before, PAGE) : null), [api]);
  const { items: mails, next, load, notice } = useCursorPages(fetchPage);
  const [open, setOpen] = useState<OutboxMail | null>(null);

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  return (
    <section className="mail-page">
      <h2>Mail outbox</h2>
      <p className="note">Mail of an app without SMTP settings waits here (unsent), and so does mail the SMTP server did not take (failed). Newest first.</p>
      {notice && <p role="status" className="notice">{notice}</p>}
      <button type="button" onClick={() => void load('')}>Refresh</button>
      {/* Above the list and sticky, like a mail reader's pane. */}
      {open && (
        <section className="mail-reader" aria-label={`Mail to ${open.to}`}>
          <div className="row">
            <h3 className="grow">{open.subject}</h3>
            <button type="button" onClick={() => setOpen(null)}>Close</button>
          </div>
          <p className="note">To {open.to} · {open.createdAt} · {open.status}</p>
          <pre className="console-answer" aria-label="Mail text">{open.text}</pre>
          {/* The HTML part is shown as its source: rendering it would run the mail's markup in the dashboard's origin. */}
          {open.html !== undefined && <pre className="console-answer" aria-label="Mail HTML source">{open.html}</pre>}
        </section>
      )}
      {mails === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <table className="config-table" aria-label="Mail">
          <thead>
            <tr><th>Created</th><th>To</th><th>Subject</th><th>Status</th><th /></tr>
          </thead>
          <tbody>
            {mails.length === 0 && <tr><td colSpan={5} className="muted">No mail in the outbox.</td></tr>}
            {mails.map((mail) => (
              <tr key={mail.objectId} data-mail={mail.objectId} className={open?.objectId === mail.objectId ? 'selected' : undefined}>
                <td>{mail.createdAt}</td>
                <td>{mail.to}</td>
                <td>{mail.subject}</td>
                <td>{mail.status}{mail.error ? <div className="problem">{mail.error}</div> : null}</td>
                <td><button type="button" aria-label={`Read the mail ${mail.subject} to ${mail.to}`} onClick={() => setOpen(mail)}>Read</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && <button type="button" onClick={() => void load(next)}>Older mail</button>}
    </section>
  );
}
