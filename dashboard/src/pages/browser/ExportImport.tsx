import { useRef, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { Where } from '../../api/types.ts';
import type { Column } from './columns.ts';
import { DEFAULT_SORT, FIRST_PAGE, nextCursor, pageQuery, type Cursor } from './paging.ts';
import { csvHeader, csvRows, importWrites, rowsFromCsv, rowsFromJson, type ImportRow } from './transfer.ts';

const EXPORT_PAGE = 1000;
const BATCH = 50;

interface Refusal {
  readonly position: number;
  readonly code?: number;
  readonly error: string;
}

/** Export the class (or the filtered rows) and import a file into it, with progress and a report. */
export function ExportImport(props: { api: AppApi; className: string; columns: readonly Column[]; where: Where; total: number | undefined; onImported(): void }) {
  const { api, className, columns } = props;
  const [progress, setProgress] = useState<{ label: string; done: number; of: number | undefined } | null>(null);
  const [report, setReport] = useState<{ summary: string; refused: readonly Refusal[] } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const [update, setUpdate] = useState(false);

  const exportAs = async (format: 'json' | 'csv') => {
    setReport(null);
    // The file is built page by page as Blob parts, so no single string holds the whole class.
    const parts: string[] = [format === 'csv' ? csvHeader(columns) : '['];
    let cursor: Cursor | null = FIRST_PAGE;
    let count = 0;
    try {
      while (cursor) {
        setProgress({ label: 'Exporting', done: count, of: props.total });
        const { where, order } = pageQuery(props.where, DEFAULT_SORT, cursor);
        const page = await api.find(className, { where, order, limit: EXPORT_PAGE });
        if (format === 'csv') parts.push(csvRows(columns, page));
        else if (page.length) parts.push(`${count ? ',' : ''}\n${page.map((row) => JSON.stringify(row)).join(',\n')}`);
        count += page.length;
        cursor = nextCursor(DEFAULT_SORT, cursor, page, EXPORT_PAGE);
      }
      if (format === 'json') parts.push('\n]\n');
      const url = URL.createObjectURL(new Blob(parts, { type: format === 'csv' ? 'text/csv' : 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `${className}.${format}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setReport({ summary: `Exported ${count} ${count === 1 ? 'row' : 'rows'} as ${format.toUpperCase()}.`, refused: [] });
    } catch (error) {
      setReport({ summary: `Export stopped after ${count} rows: ${failureText(error)}`, refused: [] });
    } finally {
      setProgress(null);
    }
  };

  const importFile = async (file: File) => {
    setReport(null);
    let rows: ImportRow[];
    try {
      const text = await file.text();
      const typeOf = (field: string) => columns.find((column) => column.name === field)?.type;
      rows = /\.json$/i.test(file.name) || /^\s*[[{]/.test(text) ? rowsFromJson(text) : rowsFromCsv(text, typeOf);
    } catch (error) {
      setReport({ summary: `${file.name} could not be read: ${(error as Error).message}`, refused: [] });
      return;
    }
    const refused: Refusal[] = rows.filter((row) => row.problem).map((row) => ({ position: row.position, error: `not sent: ${row.problem!}` }));
    const sendable = rows.filter((row) => row.fields);
    let created = 0;
    let updated = 0;
    try {
      for (let start = 0; start < sendable.length; start += BATCH) {
        setProgress({ label: 'Importing', done: start, of: sendable.length });
        const chunk = sendable.slice(start, start + BATCH);
        // Which of the chunk's objectIds exist: one query per batch, by the ids themselves.
        const ids = update ? chunk.flatMap((row) => (row.objectId ? [row.objectId] : [])) : [];
        const existing = new Set(ids.length ? (await api.find(className, { where: { objectId: { $in: ids } }, keys: ['objectId'], limit: ids.length })).map((o) => o.objectId) : []);
        const writes = importWrites(chunk, update, existing);
        const answers = await api.batch(writes.map((write) => ({ ...write, className })));
        answers.forEach((failure, k) => {
          if (failure) refused.push({ position: chunk[k]!.position, code: failure.code, error: failure.error });
          else if (writes[k]!.method === 'PUT') updated++;
          else created++;
        });
      }
    } catch (error) {
      refused.push({ position: 0, error: `the import stopped: ${failureText(error)}` });
    } finally {
      setProgress(null);
    }
    refused.sort((a, b) => a.position - b.position);
    const detail = update ? ` (${updated} updated, ${created} created)` : '';
    setReport({ summary: `Imported ${created + updated} of ${rows.length} rows from ${file.name}${detail}; ${refused.length} refused.`, refused });
    props.onImported();
  };

  return (
    <div className="transfer">
      <button type="button" disabled={!!progress} onClick={() => exportAs('csv')}>Export CSV</button>
      <button type="button" disabled={!!progress} onClick={() => exportAs('json')}>Export JSON</button>
      <label className="button">
        Import…
        <input
          ref={fileInput}
          type="file"
          accept=".csv,.json,text/csv,application/json"
          aria-label="Import a CSV or JSON file"
          hidden
          disabled={!!progress}
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) void importFile(file);
            event.target.value = '';
          }}
        />
      </label>
      <label>
        <input type="checkbox" checked={update} disabled={!!progress} onChange={(e) => setUpdate(e.target.checked)} />
        Update objects whose objectId exists
      </label>
      {progress && (
        <label className="progress">
          {progress.label}… {progress.done}{progress.of !== undefined ? ` of ${progress.of}` : ''}
          <progress aria-label={`${progress.label} progress`} value={progress.done} max={progress.of ?? undefined} />
        </label>
      )}
      {report && (
        <div role="status" className="notice transfer-report" aria-label="Transfer report">
          <p>{report.summary}</p>
          {report.refused.length > 0 && (
            <table aria-label="Rows refused">
              <thead><tr><th>Row</th><th>Code</th><th>Why</th></tr></thead>
              <tbody>
                {report.refused.slice(0, 200).map((refusal, k) => (
                  <tr key={k}><td>{refusal.position || '—'}</td><td>{refusal.code ?? '—'}</td><td>{refusal.error}</td></tr>
                ))}
              </tbody>
            </table>
          )}
          {report.refused.length > 200 && <p>…and {report.refused.length - 200} more.</p>}
          <button type="button" onClick={() => setReport(null)}>Dismiss</button>
        </div>
      )}
    </div>
  );
}
