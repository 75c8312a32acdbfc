import { useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ParseObject } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { useObjectIdPages } from '../shared/useObjectIdPages.ts';
import { DEVICE_TYPES, installationsQuery, shortToken } from './installations-query.ts';

const PAGE = 50;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The app's installations: filtered by channel and device type, in keyset pages; channels edited, an installation deleted. */
export function InstallationsPage(props: { applicationId: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const [channel, setChannel] = useState('');
  const [deviceType, setDeviceType] = useState('');
  const { rows, setRows, more, load, notice, setNotice } = useObjectIdPages(
    api ? (after) => api.find('_Installation', { where: installationsQuery(channel.trim(), deviceType, after), order: 'objectId', limit: PAGE }) : null,
    PAGE,
    [api, channel, deviceType],
  );

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  const replace = (updated: ParseObject) => setRows((current) => current?.map((row) => (row.objectId === updated.objectId ? updated : row)) ?? null);
  const removed = (objectId: string) => {
    setRows((current) => current?.filter((row) => row.objectId !== objectId) ?? null);
    setNotice(`Deleted the installation ${objectId}.`);
  };

  return (
    <section className="installations-page">
      <h2>Installations</h2>
      {notice && <p role="status" className="notice">{notice}</p>}
      <div className="row">
        <input aria-label="Filter by channel" placeholder="channel" value={channel} onChange={(event) => setChannel(event.target.value)} />
        <select aria-label="Filter by device type" value={deviceType} onChange={(event) => setDeviceType(event.target.value)}>
          <option value="">any device type</option>
          {DEVICE_TYPES.map((type) => <option key={type} value={type}>{type}</option>)}
        </select>
      </div>
      {rows === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <table className="config-table" aria-label="Installations">
          <thead>
            <tr><th>Device type</th><th>Channels</th><th>installationId</th><th>Device token</th><th>App version / time zone</th><th>Updated</th><th /></tr>
          </thead>
          <tbody>
            {rows.length === 0 && <tr><td colSpan={7} className="muted">No installations.</td></tr>}
            {rows.map((row) => <InstallationRow key={row.objectId} api={api} row={row} onChanged={replace} onDeleted={removed} />)}
          </tbody>
        </table>
      )}
      {more && <button type="button" onClick={() => void load(true)}>More installations</button>}
    </section>
  );
}

function InstallationRow(props: { api: AppApi; row: ParseObject; onChanged(row: ParseObject): void; onDeleted(objectId: string): void }) {
  const { api, row } = props;
  const id = row.objectId;
  const channels = Array.isArray(row.channels) ? row.channels.map(String) : [];
  const [adding, setAdding] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const changeChannels = async (op: 'AddUnique' | 'Remove', name: string) => {
    try {
      await api.updateInstallation(id, { channels: { __op: op, objects: [name] } });
      const [fresh] = await api.find('_Installation', { where: { objectId: id }, limit: 1 });
      if (fresh) props.onChanged(fresh);
      setProblem(null);
      if (op === 'AddUnique') setAdding('');
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  const remove = async () => {
    setConfirmDelete(false);
    try {
      await api.deleteInstallation(id);
      props.onDeleted(id);
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  const token = text(row.deviceToken);
  const versionAndZone = [text(row.appVersion), text(row.timeZone)].filter(Boolean).join(' · ');

  return (
    <tr data-installation={id}>
      <td>{text(row.deviceType)}</td>
      <td>
        <ul className="chips" aria-label={`Channels of ${id}`}>
          {channels.map((name) => (
            <li key={name}>
              {name === '' ? '(everyone)' : name}
              <button type="button" aria-label={`Remove the channel ${name} from ${id}`} onClick={() => void changeChannels('Remove', name)}>×</button>
            </li>
          ))}
        </ul>
        <form className="row" onSubmit={(event) => { event.preventDefault(); if (adding.trim()) void changeChannels('AddUnique', adding.trim()); }}>
          <input aria-label={`Channel to add to ${id}`} placeholder="channel" size={10} value={adding} onChange={(event) => setAdding(event.target.value)} />
          <button type="submit">Add channel</button>
        </form>
      </td>
      <td><code>{text(row.installationId)}</code></td>
      <td title={token}><code>{shortToken(token)}</code></td>
      <td>{versionAndZone}</td>
      <td>{text(row.updatedAt)}</td>
      <td>
        {confirmDelete ? (
          <span role="alertdialog" aria-label={`Confirm deleting the installation ${id}`}>
            Delete this installation?{' '}
            <button type="button" className="danger" onClick={() => void remove()}>Delete</button>
            <button type="button" onClick={() => setConfirmDelete(false)}>Cancel</button>
          </span>
        ) : (
          <button type="button" className="danger" aria-label={`Delete the installation ${id}`} onClick={() => setConfirmDelete(true)}>Delete</button>
        )}
        {problem && <span role="alert" className="problem">{problem}</span>}
      </td>
    </tr>
  );
}
