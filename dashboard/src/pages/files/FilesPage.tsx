import { useEffect, useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { StoredFile } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { useCursorPages } from '../shared/useCursorPages.ts';
import { givenName, humanSize, previewKind, TEXT_PREVIEW_BYTES } from './file-preview.ts';

const PAGE = 50;

/** The app's stored files (GET /1/files) by name in keyset pages; a preview; delete after a confirmation. */
export function FilesPage(props: { applicationId: string }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const fetchPage = useMemo(() => (api ? (after: string) => api.listFiles(after, PAGE) : null), [api]);
  const { items: files, setItems: setFiles, next, load, notice, setNotice } = useCursorPages(fetchPage);
  const [open, setOpen] = useState<StoredFile | null>(null);

  if (!api) return <p role="alert">This app's master key is not known to this account.</p>;
  const deleted = (name: string) => {
    setFiles((current) => current?.filter((file) => file.name !== name) ?? null);
    if (open?.name === name) setOpen(null);
    setNotice(`Deleted ${name}.`);
  };

  return (
    <section className="files-page">
      <h2>Files</h2>
      {notice && <p role="status" className="notice">{notice}</p>}
      <button type="button" onClick={() => void load('')}>Refresh</button>
      {/* Above the list and sticky: the file opened from row 300 is still in view. */}
      {open && <FilePreview key={open.name} file={open} onClose={() => setOpen(null)} />}
      {files === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <table className="config-table" aria-label="Files">
          <thead>
            <tr><th>Name</th><th>Size</th><th>Content type</th><th>Stored</th><th /></tr>
          </thead>
          <tbody>
            {files.length === 0 && <tr><td colSpan={5} className="muted">No files.</td></tr>}
            {files.map((file) => <FileRow key={file.name} api={api} file={file} onOpen={setOpen} onDeleted={deleted} />)}
          </tbody>
        </table>
      )}
      {next && <button type="button" onClick={() => void load(next)}>More files</button>}
    </section>
  );
}

function FileRow(props: { api: AppApi; file: StoredFile; onOpen(file: StoredFile): void; onDeleted(name: string): void }) {
  const { file } = props;
  const [confirm, setConfirm] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const remove = async () => {
    setConfirm(false);
    try {
      await props.api.deleteFile(file.name);
      props.onDeleted(file.name);
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  return (
    <tr data-file={file.name}>
      <td title={file.name}>{givenName(file.name)}<div className="note"><code>{file.name}</code></div></td>
      <td title={`${file.size} bytes`}>{humanSize(file.size)}</td>
      <td>{file.contentType}</td>
      <td>{file.createdAt ?? ''}</td>
      <td>
        <button type="button" aria-label={`Preview ${file.name}`} onClick={() => props.onOpen(file)}>Preview</button>
        {confirm ? (
          <span role="alertdialog" aria-label={`Confirm deleting ${file.name}`}>
            {' '}Delete this file? Objects that name it keep a broken link.{' '}
            <button type="button" className="danger" onClick={() => void remove()}>Delete</button>
            <button type="button" onClick={() => setConfirm(false)}>Cancel</button>
          </span>
        ) : (
          <button type="button" className="danger" aria-label={`Delete ${file.name}`} onClick={() => setConfirm(true)}>Delete</button>
        )}
        {problem && <span role="alert" className="problem">{problem}</span>}
      </td>
    </tr>
  );
}

function FilePreview(props: { file: StoredFile; onClose(): void }) {
  const { file } = props;
  const kind = previewKind(file.contentType);
  const [text, setText] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (kind !== 'text') return;
    // A file URL needs no key; only the first bytes are asked for. A URL on another origin
    // (the app's filesURL) is outside the page's connect-src: the link below still opens it.
    // A Range on an empty file would answer 416, so only a file larger than the preview gets one.
    const headers: Record<string, string> = file.size > TEXT_PREVIEW_BYTES ? { Range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` } : {};
    fetch(file.url, { headers, credentials: 'omit', cache: 'no-store' })
      .then(async (response) => {
        if (!response.ok) throw new Error(`The file answered ${response.status}.`);
        setText(await response.text());
      })
      .catch((error: unknown) => setProblem(error instanceof Error && !(error instanceof TypeError) ? error.message : 'The file cannot be read from this page; open it below.'));
  }, [file.url, file.size, kind]);
  return (
    <section className="file-preview" aria-label={`Preview of ${file.name}`}>
      <div className="row">
        <h3 className="grow">{givenName(file.name)}</h3>
        <a href={file.url} target="_blank" rel="noreferrer noopener" download={givenName(file.name)}>Download</a>
        <button type="button" onClick={props.onClose}>Close</button>
      </div>
      {kind === 'image' && <img src={file.url} alt={givenName(file.name)} className="preview-image" />}
      {kind === 'text' && (problem ? <p role="alert" className="problem">{problem}</p> : text === null ? <p className="muted">Loading…</p> : (
        <>
          <pre className="console-answer" aria-label="File text">{text}</pre>
          {file.size > TEXT_PREVIEW_BYTES && <p className="note">The first {humanSize(TEXT_PREVIEW_BYTES)} of {humanSize(file.size)}.</p>}
        </>
      ))}
      {kind === 'link' && <p className="muted">No preview for {file.contentType}; use the download link.</p>}
    </section>
  );
}
