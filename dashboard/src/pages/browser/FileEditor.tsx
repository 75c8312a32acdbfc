import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { Column } from './columns.ts';
import { isImageName } from './pickers.ts';

/**
 * A File's editor: the file now (an image as a preview, else a link), a new one uploaded
 * (`POST /1/files/<name>` with its bytes and content type, then the File written to the cell) or
 * the field removed.
 */
export function FileEditor(props: { api: AppApi; column: Column; value: unknown; onSave(value: unknown): void; onCancel(): void }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const file = props.value as { __type?: unknown; name?: unknown; url?: unknown } | undefined;
  const name = file?.__type === 'File' && typeof file.name === 'string' ? file.name : undefined;
  const url = typeof file?.url === 'string' ? file.url : undefined;
  const upload = async (chosen: File) => {
    setBusy(true);
    setProblem(null);
    try {
      const stored = await props.api.uploadFile(chosen.name, chosen, chosen.type);
      props.onSave({ __type: 'File', name: stored.name, url: stored.url });
    } catch (error) {
      setProblem(`${chosen.name} was not uploaded: ${failureText(error)}`);
      setBusy(false);
    }
  };
  return (
    <div className="json-editor file-editor" role="dialog" aria-label={`Edit ${props.column.name}`} onKeyDown={(e) => e.key === 'Escape' && props.onCancel()}>
      <p>{props.column.name} (File)</p>
      {name ? (
        <p>
          {url && isImageName(name) && <img className="preview" src={url} alt={`Preview of ${name}`} />}
          {url ? <a href={url} target="_blank" rel="noreferrer">{name}</a> : name}
        </p>
      ) : (
        <p className="muted">No file.</p>
      )}
      <label>
        {name ? 'Replace with a file' : 'Upload a file'}
        <input type="file" aria-label={`Upload a file for ${props.column.name}`} disabled={busy} onChange={(event) => {
          const chosen = event.target.files?.[0];
          if (chosen) void upload(chosen);
        }} />
      </label>
      {busy && <p role="status">Uploading…</p>}
      {problem && <p role="alert" className="problem">{problem}</p>}
      <div className="buttons">
        {name && <button type="button" className="danger" disabled={busy} onClick={() => props.onSave({ __op: 'Delete' })}>Remove file</button>}
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </div>
  );
}
