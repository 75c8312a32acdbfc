import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';

interface FileRef {
  readonly name: string;
  readonly url?: string;
}

/** The File a value holds (`{__type: "File", name, url}`), or null. */
export function fileOf(value: unknown): FileRef | null {
  const file = value as { __type?: unknown; name?: unknown; url?: unknown } | null;
  if (typeof file !== 'object' || file === null || file.__type !== 'File' || typeof file.name !== 'string') return null;
  return { name: file.name, ...(typeof file.url === 'string' ? { url: file.url } : {}) };
}

/** Image files are shown by their name's extension, the one hint a File value carries. */
const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp|svg|ico)$/i;

/** A small preview of an image File, its name as a link otherwise. */
export function FilePreview(props: { value: unknown }) {
  const file = fileOf(props.value);
  if (!file?.url) return null;
  return IMAGE.test(file.name) ? (
    <a href={file.url} target="_blank" rel="noreferrer"><img className="config-file-preview" src={file.url} alt={`Preview of ${file.name}`} /></a>
  ) : (
    <a href={file.url} target="_blank" rel="noreferrer">Open {file.name}</a>
  );
}

/**
 * A file chosen on this computer, uploaded at once as the master key (`POST /1/files/<name>`
 * with its bytes and type); the answer's `{__type: "File", name, url}` becomes the value's JSON.
 */
export function FileUpload(props: { api: AppApi; label: string; onUploaded(json: string): void }) {
  const [state, setState] = useState<{ said: string; failed: boolean } | null>(null);
  const upload = async (file: File | undefined) => {
    if (!file) return;
    setState({ said: `Uploading ${file.name}…`, failed: false });
    try {
      const stored = await props.api.uploadFile(file.name, file, file.type);
      props.onUploaded(JSON.stringify({ __type: 'File', name: stored.name, url: stored.url }, null, 2));
      setState({ said: `Uploaded ${file.name}.`, failed: false });
    } catch (error) {
      setState({ said: failureText(error), failed: true });
    }
  };
  return (
    <span className="file-upload">
      <input type="file" aria-label={`File for ${props.label}`} onChange={(event) => void upload(event.target.files?.[0])} />
      {state && <span role={state.failed ? 'alert' : 'status'} className={state.failed ? 'problem' : 'muted'}>{state.said}</span>}
    </span>
  );
}
