import { useCallback, useEffect, useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import { useSession } from '../../session.tsx';
import { ConfigHistory, historyOf, type ConfigChange, type ParamState } from './ConfigHistory.tsx';
import { fileOf, FilePreview, FileUpload } from './FileValue.tsx';
import { PARAM_TYPES, parseValue, typeOfValue, valueText, type ParamType } from './config-values.ts';

interface Param {
  readonly name: string;
  readonly value: unknown;
  readonly masterKeyOnly: boolean;
}

/** The app's config parameters (GET/PUT /1/config): every type, the masterKeyOnly flag, add, edit, delete. */
export function ConfigPage(props: { applicationId: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const [params, setParams] = useState<readonly Param[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const history = historyOf(session.account, props.applicationId);
  const [changes, setChanges] = useState<readonly ConfigChange[]>(() => [...history]);
  const record = (name: string, after: ParamState | undefined) => {
    const old = params?.find((param) => param.name === name);
    history.push({ at: new Date(), name, ...(old ? { before: { value: old.value, masterKeyOnly: old.masterKeyOnly } } : {}), ...(after ? { after } : {}) });
    setChanges([...history]);
  };

  const load = useCallback(() => {
    if (!api) return;
    api.getConfig().then(
      (config) => setParams(Object.keys(config.params).sort().map((name) => ({ name, value: config.params[name], masterKeyOnly: config.masterKeyOnly?.[name] === true }))),
      (error: unknown) => setNotice(failureText(error)),
    );
  }, [api]);
  useEffect(load, [load]);

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  const save = async (name: string, value: unknown, masterKeyOnly: boolean): Promise<string | null> => {
    try {
      await api.putConfig({ [name]: value }, { [name]: masterKeyOnly });
      record(name, { value, masterKeyOnly });
      setNotice(`Saved ${name}.`);
      setEditing(null);
      load();
      return null;
    } catch (error) {
      return failureText(error);
    }
  };
  const remove = async (name: string) => {
    setConfirmDelete(null);
    try {
      await api.putConfig({ [name]: { __op: 'Delete' } }, {});
      record(name, undefined);
      setNotice(`Deleted ${name}.`);
      load();
    } catch (error) {
      setNotice(failureText(error));
    }
  };

  const putBack = async (change: ConfigChange) => {
    if (!change.before) return remove(change.name);
    const failed = await save(change.name, change.before.value, change.before.masterKeyOnly);
    if (failed) setNotice(failed);
  };

  return (
    <section className="config-page">
      <h2>Config</h2>
      {notice && <p role="status" className="notice">{notice}</p>}
      {params === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <table className="config-table" aria-label="Config parameters">
          <thead>
            <tr><th>Name</th><th>Type</th><th>Value</th><th>Master key only</th><th /></tr>
          </thead>
          <tbody>
            {params.length === 0 && <tr><td colSpan={5} className="muted">No parameters yet.</td></tr>}
            {params.map((param) =>
              editing === param.name ? (
                <tr key={param.name}><td colSpan={5}><ParamForm api={api} initial={param} onSave={save} onCancel={() => setEditing(null)} /></td></tr>
              ) : (
                <tr key={param.name} data-param={param.name}>
                  <td>{param.name}</td>
                  <td>{typeOfValue(param.value)}</td>
                  <td className="config-value">{fileOf(param.value) ? fileOf(param.value)!.name : valueText(param.value, typeOfValue(param.value))}<FilePreview value={param.value} /></td>
                  <td>{param.masterKeyOnly ? 'yes' : 'no'}</td>
                  <td>
                    <button type="button" onClick={() => setEditing(param.name)} aria-label={`Edit ${param.name}`}>Edit</button>
                    {confirmDelete === param.name ? (
                      <span role="alertdialog" aria-label={`Confirm deleting ${param.name}`}>
                        {' '}Delete {param.name}?{' '}
                        <button type="button" className="danger" onClick={() => remove(param.name)}>Delete</button>
                        <button type="button" onClick={() => setConfirmDelete(null)}>Cancel</button>
                      </span>
                    ) : (
                      <button type="button" className="danger" onClick={() => setConfirmDelete(param.name)} aria-label={`Delete ${param.name}`}>Delete</button>
                    )}
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
      <h3>Add a parameter</h3>
      <ParamForm api={api} onSave={save} />
      <ConfigHistory changes={changes} onPutBack={(change) => void putBack(change)} />
    </section>
  );
}

/** A parameter's name (when new), type, value and flag; the value is checked against the type before it is sent. */
function ParamForm(props: { api: AppApi; initial?: Param; onSave(name: string, value: unknown, masterKeyOnly: boolean): Promise<string | null>; onCancel?(): void }) {
  const { initial } = props;
  const [name, setName] = useState(initial?.name ?? '');
  const [type, setType] = useState<ParamType>(initial ? typeOfValue(initial.value) : 'String');
  const [text, setText] = useState(initial ? valueText(initial.value, typeOfValue(initial.value)) : '');
  const [masterKeyOnly, setMasterKeyOnly] = useState(initial?.masterKeyOnly ?? false);
  const [problem, setProblem] = useState<string | null>(null);
  const label = initial ? initial.name : 'the new parameter';
  const multiline = type === 'Array' || type === 'Object' || type === 'File' || type === 'String';

  const submit = async () => {
    if (!initial && !name.trim()) return setProblem('A parameter needs a name.');
    let value: unknown;
    try {
      value = parseValue(text, type);
    } catch (error) {
      return setProblem((error as Error).message);
    }
    setProblem(await props.onSave(initial?.name ?? name.trim(), value, masterKeyOnly));
    if (!initial) {
      setName('');
      setText('');
    }
  };

  return (
    <form className="param-form" onSubmit={(event) => { event.preventDefault(); void submit(); }}>
      {!initial && <input aria-label="Name of the new parameter" placeholder="name" value={name} onChange={(event) => setName(event.target.value)} />}
      <select aria-label={`Type of ${label}`} value={type} onChange={(event) => setType(event.target.value as ParamType)}>
        {PARAM_TYPES.map((t) => <option key={t}>{t}</option>)}
      </select>
      {type === 'Boolean' ? (
        <select aria-label={`Value of ${label}`} value={text} onChange={(event) => setText(event.target.value)}>
          <option value="">choose…</option>
          <option>true</option>
          <option>false</option>
        </select>
      ) : multiline ? (
        <textarea aria-label={`Value of ${label}`} rows={type === 'String' ? 1 : 4} value={text} onChange={(event) => setText(event.target.value)} />
      ) : (
        <input aria-label={`Value of ${label}`} value={text} placeholder={type === 'GeoPoint' ? 'latitude, longitude' : type === 'Date' ? '2026-03-01T09:30:00.000Z' : ''} onChange={(event) => setText(event.target.value)} />
      )}
      {type === 'File' && <FileUpload api={props.api} label={label} onUploaded={setText} />}
      {type === 'File' && <FilePreview value={previewValue(text)} />}
      <label>
        <input type="checkbox" aria-label={`Master key only: ${label}`} checked={masterKeyOnly} onChange={(event) => setMasterKeyOnly(event.target.checked)} /> master key only
      </label>
      <button type="submit">{initial ? `Save` : 'Add parameter'}</button>
      {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      {problem && <span role="alert" className="problem">{problem}</span>}
    </form>
  );
}

/** The value a File editor's JSON stands for, for its preview; nothing while it is not valid. */
function previewValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
