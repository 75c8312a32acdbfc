import { typeOfValue, valueText } from './config-values.ts';
import { fileOf } from './FileValue.tsx';

/** One parameter as it was or became: its value and flag; absent when it did not exist. */
export interface ParamState {
  readonly value: unknown;
  readonly masterKeyOnly: boolean;
}

export interface ConfigChange {
  readonly at: Date;
  readonly name: string;
  readonly before?: ParamState;
  readonly after?: ParamState;
}

/**
 * The server keeps no history of the config (a PUT replaces values), so the page keeps the
 * changes it made itself, in memory only, for as long as the account stays signed in in this tab:
 * keyed by the session's account object, they go with it at sign-out or reload, like the keys
 * (docs/dashboard.md "Keys"). Changes made elsewhere are not in it.
 */
const histories = new WeakMap<object, Map<string, ConfigChange[]>>();

export function historyOf(account: object, applicationId: string): ConfigChange[] {
  let apps = histories.get(account);
  if (!apps) histories.set(account, (apps = new Map()));
  let changes = apps.get(applicationId);
  if (!changes) apps.set(applicationId, (changes = []));
  return changes;
}

function stateText(state: ParamState | undefined): string {
  if (!state) return '(none)';
  // A File by its name: its URL says nothing more and would crowd the table.
  const file = fileOf(state.value);
  return `${file ? `File ${file.name}` : valueText(state.value, typeOfValue(state.value))}${state.masterKeyOnly ? ' (master key only)' : ''}`;
}

/** The changes, newest first, each with a button that puts the parameter back as it was before it. */
export function ConfigHistory(props: { changes: readonly ConfigChange[]; onPutBack(change: ConfigChange): void }) {
  return (
    <section aria-label="Changes made in this tab">
      <h3>Changes made in this tab</h3>
      {props.changes.length === 0 ? (
        <p className="muted">None yet. Changes made here are listed until you sign out or reload; the server keeps no history.</p>
      ) : (
        <table className="config-table" aria-label="Config changes">
          <thead><tr><th>#</th><th>When</th><th>Name</th><th>Before</th><th>After</th><th /></tr></thead>
          <tbody>
            {[...props.changes].reverse().map((change, index) => {
              const number = props.changes.length - index;
              return (
              <tr key={number} data-change={change.name}>
                <td>{number}</td>
                <td>{change.at.toLocaleTimeString()}</td>
                <td>{change.name}</td>
                <td className="config-value">{stateText(change.before)}</td>
                <td className="config-value">{stateText(change.after)}</td>
                <td><button type="button" aria-label={`Put ${change.name} back as before change ${number}`} onClick={() => props.onPutBack(change)}>Put back</button></td>
              </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
