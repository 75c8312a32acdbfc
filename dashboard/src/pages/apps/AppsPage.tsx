import { useState, type FormEvent } from 'react';
import { failureText } from '../../api/errors.ts';
import { useSession } from '../../session.tsx';
import { navigate } from '../../router.ts';
import { AppKeys } from './AppKeys.tsx';
import { AppSettings } from './AppSettings.tsx';

/** The apps the account owns or collaborates on; one of them open with its keys and settings. */
export function AppsPage(props: { selected?: string | undefined }) {
  const session = useSession();
  const selected = session.apps.find((app) => app.applicationId === props.selected);
  return (
    <div className="apps-page">
      <section className="apps-list" aria-labelledby="apps-heading">
        <h1 id="apps-heading">Apps</h1>
        <ul>
          {session.apps.map((app) => (
            <li key={app.applicationId} className={app === selected ? 'current' : undefined}>
              <a href={`/dashboard/apps/${encodeURIComponent(app.applicationId)}`} onClick={(event) => { event.preventDefault(); navigate({ page: 'apps', applicationId: app.applicationId }); }}>
                {app.appName}
              </a>
              <button type="button" className="link" onClick={() => navigate({ page: 'browser', applicationId: app.applicationId })} aria-label={`Browse data of ${app.appName}`}>
                Data
              </button>
            </li>
          ))}
        </ul>
        <CreateApp />
      </section>
      {selected ? (
        <section className="app-detail" aria-label={`App ${selected.appName}`}>
          <h2>{selected.appName}</h2>
          <p className="muted">Application id <code>{selected.applicationId}</code></p>
          <AppKeys app={selected} />
          <AppSettings key={selected.applicationId} app={selected} />
        </section>
      ) : (
        session.apps.length > 0 && <p className="muted app-detail">Choose an app to see its keys and settings.</p>
      )}
    </div>
  );
}

function CreateApp() {
  const session = useSession();
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const app = await session.account.createApp(name);
      session.remember(app);
      setName('');
      navigate({ page: 'apps', applicationId: app.applicationId });
    } catch (error) {
      setProblem(failureText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="create-app" aria-label="Create an app">
      <label>
        New app name
        <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <button type="submit" disabled={busy}>Create app</button>
      {problem && <p role="alert" className="problem">{problem}</p>}
    </form>
  );
}
