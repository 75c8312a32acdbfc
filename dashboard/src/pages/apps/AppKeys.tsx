import { useState } from 'react';
import { failureText } from '../../api/errors.ts';
import { KEY_NAMES, type App, type KeyName } from '../../api/types.ts';
import { useSession } from '../../session.tsx';

const LABELS: Record<KeyName, string> = {
  masterKey: 'Master key',
  restKey: 'REST API key',
  clientKey: 'Client key',
  javascriptKey: 'JavaScript key',
  windowsKey: 'Windows key',
  webhookKey: 'Webhook key',
};

/** Keys hidden until asked for; copy and rotate each (POST /1/apps/<id>/rotateKey). */
export function AppKeys(props: { app: App }) {
  return (
    <section aria-labelledby="keys-heading">
      <h3 id="keys-heading">Keys</h3>
      <table className="keys">
        <tbody>
          {KEY_NAMES.map((name) => (
            <KeyRow key={name} app={props.app} name={name} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function KeyRow(props: { app: App; name: KeyName }) {
  const session = useSession();
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const value = String(props.app[props.name] ?? '');
  const label = LABELS[props.name];

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setNote('Copied.');
    } catch {
      setNote('The browser refused the clipboard; show the key and copy it by hand.');
    }
  };
  const rotate = async () => {
    setConfirming(false);
    try {
      session.remember(await session.account.rotateKey(props.app.applicationId, props.name));
      setNote('Replaced. Clients that used the old key are refused from now on.');
    } catch (error) {
      setNote(failureText(error));
    }
  };

  return (
    <tr>
      <th scope="row">{label}</th>
      <td>
        <code data-key={props.name} aria-label={label}>{shown ? value : '•'.repeat(12)}</code>
      </td>
      <td className="actions">
        <button type="button" onClick={() => setShown(!shown)} aria-label={`${shown ? 'Hide' : 'Show'} ${label}`}>{shown ? 'Hide' : 'Show'}</button>
        <button type="button" onClick={copy} aria-label={`Copy ${label}`}>Copy</button>
        {confirming ? (
          <>
            <button type="button" className="danger" onClick={rotate} aria-label={`Confirm rotating ${label}`}>Replace it</button>
            <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)} aria-label={`Rotate ${label}`}>Rotate</button>
        )}
        {note && <span role="status" className="note">{note}</span>}
      </td>
    </tr>
  );
}
