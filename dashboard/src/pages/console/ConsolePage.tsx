import { useState } from 'react';
import { sendRaw, type RawAnswer } from '../../api/client.ts';
import { useSession } from '../../session.tsx';
import { answerText, bodyToSend, curlCommand, METHODS, requestProblem, type ConsoleRequest, type Method } from './console-request.ts';

type SendAs = 'master' | 'user';

/** The API console: any request of the app's API, as the master key or as a user's session, with its curl equivalent. */
export function ConsolePage(props: { applicationId: string }) {
  const session = useSession();
  const app = session.apps.find((a) => a.applicationId === props.applicationId);
  const [method, setMethod] = useState<Method>('GET');
  const [path, setPath] = useState('/1/classes/');
  const [body, setBody] = useState('');
  const [sendAs, setSendAs] = useState<SendAs>('master');
  const [sessionToken, setSessionToken] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [answer, setAnswer] = useState<RawAnswer | null>(null);
  const [sent, setSent] = useState<ConsoleRequest | null>(null);

  if (!app || typeof app.masterKey !== 'string') return <p role="alert">This app's master key is not known to this account.</p>;
  const appHeaders = { 'X-Svc-Application-Id': app.applicationId };
  // A user's request carries the REST key, as a server-side client would; the session decides what it may do.
  const headers: Record<string, string> =
    sendAs === 'master' ? { ...appHeaders, 'X-Svc-Master-Key': app.masterKey } : { ...appHeaders, 'X-Svc-REST-API-Key': String(app.restKey), 'X-Svc-Session-Token': sessionToken };

  const send = async () => {
    const request: ConsoleRequest = { method, path, body, headers };
    const wrong = requestProblem(request) ?? (sendAs === 'user' && !sessionToken ? 'A user is chosen by a session token: type one or log in.' : null);
    setProblem(wrong);
    if (wrong) return;
    try {
      setAnswer(await sendRaw(method, path, headers, bodyToSend(request)));
      setSent(request);
    } catch {
      setProblem('The server could not be reached.');
    }
  };
  const logIn = async () => {
    const query = new URLSearchParams({ username, password });
    try {
      const result = await sendRaw('GET', `/1/login?${query}`, { ...appHeaders, 'X-Svc-REST-API-Key': String(app.restKey) });
      const parsed = JSON.parse(result.text) as { sessionToken?: string; error?: string };
      if (parsed.sessionToken) {
        setSessionToken(parsed.sessionToken);
        setProblem(null);
      } else setProblem(parsed.error ?? `The login answered ${result.status}.`);
    } catch {
      setProblem('The server could not be reached.');
    }
  };

  return (
    <section className="console-page">
      <h2>API console</h2>
      <form className="console-form" onSubmit={(event) => { event.preventDefault(); void send(); }}>
        <div className="row">
          <select aria-label="Method" value={method} onChange={(event) => setMethod(event.target.value as Method)}>
            {METHODS.map((m) => <option key={m}>{m}</option>)}
          </select>
          <input aria-label="Path" className="grow" value={path} onChange={(event) => setPath(event.target.value)} />
          <button type="submit">Send</button>
        </div>
        <textarea aria-label="Body (JSON)" rows={5} placeholder={'{"score": 10}'} value={body} disabled={method === 'GET' || method === 'DELETE'} onChange={(event) => setBody(event.target.value)} />
        <fieldset>
          <legend>Send as</legend>
          <label><input type="radio" name="send-as" checked={sendAs === 'master'} onChange={() => setSendAs('master')} /> the master key</label>
          <label><input type="radio" name="send-as" checked={sendAs === 'user'} onChange={() => setSendAs('user')} /> a user</label>
          {sendAs === 'user' && (
            <div className="row">
              <input aria-label="Session token" placeholder="r:…" value={sessionToken} onChange={(event) => setSessionToken(event.target.value)} />
              <span className="muted">or</span>
              <input aria-label="Username" placeholder="username" value={username} onChange={(event) => setUsername(event.target.value)} />
              <input aria-label="User's password" type="password" placeholder="password" value={password} onChange={(event) => setPassword(event.target.value)} />
              <button type="button" onClick={() => void logIn()}>Log in</button>
            </div>
          )}
        </fieldset>
        {problem && <p role="alert" className="problem">{problem}</p>}
      </form>
      {answer && sent && (
        <>
          <h3>Answer</h3>
          <p role="status" aria-label="Answer status">Status {answer.status}</p>
          <pre aria-label="Answer body" className="console-answer">{answerText(answer.text)}</pre>
          <h3>curl</h3>
          <pre aria-label="curl command" className="console-answer">{curlCommand(location.origin, sent)}</pre>
        </>
      )}
    </section>
  );
}
