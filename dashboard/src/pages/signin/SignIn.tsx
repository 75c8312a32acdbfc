import { useState, type FormEvent } from 'react';
import { AccountApi, type AccountCredentials } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { App } from '../../api/types.ts';

/** Sign in with the account of /1/apps: listing the apps is the check of the email and password. */
export function SignIn(props: { onSignedIn(credentials: AccountCredentials, apps: readonly App[]): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    const credentials = { email, password };
    try {
      props.onSignedIn(credentials, await new AccountApi(credentials).listApps());
    } catch (error) {
      setProblem(failureText(error));
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <h1>Basalt</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Email
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {problem && <p role="alert" className="problem">{problem}</p>}
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      <p className="hint">The account printed at the server's first start, or one made with it. Keys stay in this tab's memory only.</p>
    </main>
  );
}
