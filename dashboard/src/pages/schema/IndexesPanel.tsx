import { useEffect, useState, type FormEvent } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema, ScanEntry } from '../../api/types.ts';

/** Index keys as the schema API takes them: one field, 1 (ascending), -1 or "text". */
type Direction = '1' | '-1' | 'text';

/** The class's indexes, create and drop, and the indexes GET /1/scans says scanning queries need. */
export function IndexesPanel(props: { api: AppApi; schema: ClassSchema; onChanged(schema: ClassSchema): void; onNotice(text: string): void }) {
  const { api, schema } = props;
  const [suggestions, setSuggestions] = useState<ScanEntry[] | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [field, setField] = useState('');
  const [direction, setDirection] = useState<Direction>('1');
  const [problem, setProblem] = useState<string | null>(null);
  const indexes = schema.indexes ?? {};

  useEffect(() => {
    api.scans().then(
      (entries) => setSuggestions(entries.filter((entry) => entry.className === schema.className && entry.index !== null)),
      () => setSuggestions([]),
    );
  }, [api, schema.className]);

  const create = async (indexName: string, keys: Record<string, unknown>): Promise<boolean> => {
    try {
      props.onChanged(await api.updateSchema(schema.className, { indexes: { [indexName]: keys } }));
      props.onNotice(`Created the index ${indexName}.`);
      return true;
    } catch (error) {
      setProblem(failureText(error));
      return false;
    }
  };
  const drop = async (indexName: string) => {
    setConfirm(null);
    try {
      props.onChanged(await api.updateSchema(schema.className, { indexes: { [indexName]: { __op: 'Delete' } } }));
      props.onNotice(`Dropped the index ${indexName}.`);
    } catch (error) {
      props.onNotice(failureText(error));
    }
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    if (await create(name, { [field]: direction === 'text' ? 'text' : Number(direction) })) setName('');
  };
  // A suggestion already served by an index leading with its field is not offered again.
  const led = new Set(Object.values(indexes).map((keys) => Object.keys(keys)[0]));
  const open = (suggestions ?? []).filter((entry) => !led.has(Object.keys(entry.index!)[0]));

  return (
    <section aria-label="Indexes">
      <h3>Indexes</h3>
      <table className="config-table" aria-label="Indexes of the class">
        <thead><tr><th>Name</th><th>Keys</th><th /></tr></thead>
        <tbody>
          {Object.keys(indexes).length === 0 && <tr><td colSpan={3} className="muted">No indexes beyond the built-in ones.</td></tr>}
          {Object.entries(indexes).map(([indexName, keys]) => (
            <tr key={indexName} data-index={indexName}>
              <td>{indexName}</td>
              <td><code>{JSON.stringify(keys)}</code></td>
              <td>
                {indexName === '_id_' ? null : confirm === indexName ? (
                  <span role="alertdialog" aria-label={`Confirm dropping ${indexName}`}>
                    Drop {indexName}?{' '}
                    <button type="button" className="danger" onClick={() => drop(indexName)}>Drop</button>
                    <button type="button" onClick={() => setConfirm(null)}>Cancel</button>
                  </span>
                ) : (
                  <button type="button" className="danger" aria-label={`Drop index ${indexName}`} onClick={() => setConfirm(indexName)}>Drop</button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="param-form" onSubmit={submit} aria-label="Create an index">
        <input aria-label="Index name" placeholder="index name" value={name} onChange={(e) => setName(e.target.value)} required />
        <select aria-label="Index field" value={field} onChange={(e) => setField(e.target.value)} required>
          <option value="">field…</option>
          {Object.keys(schema.fields).map((f) => <option key={f}>{f}</option>)}
        </select>
        <select aria-label="Index direction" value={direction} onChange={(e) => setDirection(e.target.value as Direction)}>
          <option value="1">ascending</option>
          <option value="-1">descending</option>
          <option value="text">text</option>
        </select>
        <button type="submit">Create index</button>
        {problem && <span role="alert" className="problem">{problem}</span>}
      </form>
      <h4>Suggested by scanning queries</h4>
      {suggestions === null ? (
        <p className="muted">Reading /1/scans…</p>
      ) : open.length === 0 ? (
        <p className="muted">No query of this class scanned it for want of an index (since this server process started).</p>
      ) : (
        <ul aria-label="Index suggestions">
          {open.map((entry) => {
            const [key, value] = Object.entries(entry.index!)[0]!;
            const suggested = `by_${key}`;
            return (
              <li key={JSON.stringify(entry.index)}>
                <code>{JSON.stringify(entry.index)}</code> would serve {entry.count} scanning {entry.count === 1 ? 'query' : 'queries'} (last {entry.lastSeenAt}){' '}
                <button type="button" onClick={() => void create(suggested, { [key]: value })}>Create {suggested}</button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
