import { useState, type FormEvent } from 'react';
import { failureText } from '../../api/errors.ts';
import type { App } from '../../api/types.ts';
import { useSession } from '../../session.tsx';

type Kind = 'boolean' | 'number' | 'text' | 'json';

/** The settings of docs/api.md "Apps"; the server checks them and its message is shown as is. */
const SETTINGS: readonly { name: string; kind: Kind; hint: string }[] = [
  { name: 'clientClassCreationEnabled', kind: 'boolean', hint: 'Clients may create classes by writing to them.' },
  { name: 'clientPushEnabled', kind: 'boolean', hint: 'Clients may send push notifications.' },
  { name: 'requireRevocableSessions', kind: 'boolean', hint: 'Only revocable sessions are accepted.' },
  { name: 'revokeSessionOnPasswordChange', kind: 'boolean', hint: 'A new password ends the user\'s other sessions.' },
  { name: 'emailVerification', kind: 'boolean', hint: 'New users are sent a link to verify their address.' },
  { name: 'preventLoginWithUnverifiedEmail', kind: 'boolean', hint: 'Users must verify their address before logging in.' },
  { name: 'sessionLength', kind: 'number', hint: 'Seconds a session lasts.' },
  { name: 'emailVerifyTokenValidityDuration', kind: 'number', hint: 'Seconds a verification link works.' },
  { name: 'filesURL', kind: 'text', hint: 'File URLs start with this instead of the server\'s /files.' },
  { name: 'passwordPolicy', kind: 'json', hint: '{minLength?, pattern?, validationError?, resetTokenValidityDuration?} or null' },
  { name: 'accountLockout', kind: 'json', hint: '{threshold, duration} or null' },
  { name: 'email', kind: 'json', hint: '{host, port?, secure?, auth?: {user, pass}, from} or null (outbox)' },
  { name: 'auth', kind: 'json', hint: '{anonymous?, facebook?, twitter?} or null' },
  { name: 'fileUpload', kind: 'json', hint: '{enableForPublic?, enableForAnonymousUser?, enableForAuthenticatedUser?} or null' },
  { name: 'rateLimits', kind: 'json', hint: 'object of whole numbers' },
  { name: 'push', kind: 'json', hint: 'object' },
];

function asText(kind: Kind, value: unknown): string {
  if (value === undefined) return '';
  if (kind === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

export function AppSettings(props: { app: App }) {
  const session = useSession();
  const initial = () => Object.fromEntries([['appName', props.app.appName], ...SETTINGS.map((s) => [s.name, asText(s.kind, props.app[s.name])])]) as Record<string, string>;
  const [draft, setDraft] = useState<Record<string, string>>(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    setSaved(false);
    const change: Record<string, unknown> = {};
    if (draft.appName !== props.app.appName) change.appName = draft.appName;
    for (const setting of SETTINGS) {
      const text = draft[setting.name] ?? '';
      if (text === asText(setting.kind, props.app[setting.name]) || text === '') continue;
      if (setting.kind === 'boolean') change[setting.name] = text === 'true';
      else if (setting.kind === 'number') change[setting.name] = Number(text);
      else if (setting.kind === 'text') change[setting.name] = text;
      else {
        try {
          change[setting.name] = JSON.parse(text);
        } catch {
          setProblem(`${setting.name} is not valid JSON.`);
          return;
        }
      }
    }
    try {
      session.remember(await session.account.updateApp(props.app.applicationId, change));
      setSaved(true);
    } catch (error) {
      setProblem(failureText(error));
    }
  };

  const set = (name: string, value: string) => setDraft((current) => ({ ...current, [name]: value }));
  return (
    <form className="settings" onSubmit={save} aria-labelledby="settings-heading">
      <h3 id="settings-heading">Settings</h3>
      <label>
        App name
        <input value={draft.appName ?? ''} onChange={(e) => set('appName', e.target.value)} />
      </label>
      {SETTINGS.map((setting) => (
        <label key={setting.name} className={setting.kind === 'boolean' ? 'check' : undefined} title={setting.hint}>
          {setting.kind === 'boolean' ? (
            <input type="checkbox" checked={draft[setting.name] === 'true'} onChange={(e) => set(setting.name, String(e.target.checked))} />
          ) : null}
          <span>{setting.name}</span>
          {setting.kind === 'number' && <input type="number" value={draft[setting.name]} onChange={(e) => set(setting.name, e.target.value)} />}
          {setting.kind === 'text' && <input value={draft[setting.name]} onChange={(e) => set(setting.name, e.target.value)} />}
          {setting.kind === 'json' && <textarea rows={2} spellCheck={false} value={draft[setting.name]} placeholder={setting.hint} onChange={(e) => set(setting.name, e.target.value)} />}
        </label>
      ))}
      {problem && <p role="alert" className="problem">{problem}</p>}
      {saved && <p role="status">Saved.</p>}
      <button type="submit">Save settings</button>
    </form>
  );
}
