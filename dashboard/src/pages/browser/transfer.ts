import type { ParseObject } from '../../api/types.ts';
import type { Column, ColumnType } from './columns.ts';

/**
 * Export and import formats (docs/dashboard.md "Export and import"). JSON is an array of objects
 * as the API answers them. CSV has one header row of field names; a String, Number or Boolean is
 * its text, a Date its ISO text, any other value its JSON. An empty cell is an unset field.
 */

/** Fields the server sets itself: exported, never sent back on import. */
const SERVER_FIELDS: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt']);

function csvCell(value: unknown): string {
  let text: string;
  if (value === undefined || value === null) text = '';
  else if (typeof value !== 'object') text = String(value);
  else if ((value as { __type?: unknown }).__type === 'Date') text = String((value as { iso?: unknown }).iso);
  else text = JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(columns: readonly Column[]): string {
  return `${columns.map((column) => csvCell(column.name)).join(',')}\r\n`;
}

export function csvRows(columns: readonly Column[], rows: readonly ParseObject[]): string {
  return rows.map((row) => `${columns.map((column) => csvCell(row[column.name])).join(',')}\r\n`).join('');
}

/** RFC 4180: quoted cells may hold commas, quotes (doubled) and line breaks. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { record.push(cell); cell = ''; }
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || record.length) { record.push(cell); records.push(record); }
  return records.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** A CSV cell as the value of a column of that type; throws a sentence when it does not fit. */
export function csvValue(text: string, type: ColumnType | undefined): unknown {
  switch (type) {
    case 'String':
      return text;
    case 'Number': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`"${text}" is not a number`);
      return n;
    }
    case 'Boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      throw new Error(`"${text}" is not true or false`);
    case 'Date':
      if (Number.isNaN(Date.parse(text))) throw new Error(`"${text}" is not a date`);
      return { __type: 'Date', iso: new Date(text).toISOString() };
    case undefined: {
      // A column the class does not have yet: the text's own look decides.
      if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
      if (text === 'true' || text === 'false') return text === 'true';
      if (/^[[{]/.test(text)) {
        try { return JSON.parse(text); } catch { return text; }
      }
      return text;
    }
    default:
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`"${text.slice(0, 40)}" is not JSON for a ${type}`);
      }
  }
}

export interface ImportRow {
  /** Where the row was in the file: its line for CSV (header = 1), its index + 1 for JSON. */
  readonly position: number;
  readonly fields?: Record<string, unknown>;
  /** The row's objectId in the file, if any: kept apart, for an import that updates existing objects. */
  readonly objectId?: string;
  /** Why the row is not sent, when it could not be read. */
  readonly problem?: string;
}

export function rowsFromCsv(text: string, typeOf: (field: string) => ColumnType | undefined): ImportRow[] {
  const [header, ...records] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) return [];
  return records.map((record, index) => {
    const position = index + 2;
    const fields: Record<string, unknown> = {};
    const idColumn = header.indexOf('objectId');
    const objectId = idColumn >= 0 && record[idColumn] ? record[idColumn] : undefined;
    try {
      header.forEach((name, k) => {
        const cell = record[k] ?? '';
        if (SERVER_FIELDS.has(name) || cell === '') return;
        try {
          fields[name] = csvValue(cell, typeOf(name));
        } catch (error) {
          throw new Error(`${name}: ${(error as Error).message}`);
        }
      });
      return { position, fields, ...(objectId ? { objectId } : {}) };
    } catch (error) {
      return { position, problem: (error as Error).message };
    }
  });
}

export function rowsFromJson(text: string): ImportRow[] {
  const parsed: unknown = JSON.parse(text);
  const list = Array.isArray(parsed) ? parsed : (parsed as { results?: unknown } | null)?.results;
  if (!Array.isArray(list)) throw new Error('The file holds no array of objects (nor {"results": [...]}).');
  return list.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return { position: index + 1, problem: 'not an object' };
    const fields: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(item)) if (!SERVER_FIELDS.has(name)) fields[name] = value;
    const objectId = (item as { objectId?: unknown }).objectId;
    return { position: index + 1, fields, ...(typeof objectId === 'string' && objectId ? { objectId } : {}) };
  });
}

export type ImportWrite = { readonly method: 'POST' | 'PUT'; readonly objectId?: string; readonly body: Record<string, unknown> };

/**
 * The write of each row. A plain import creates every row. One that updates existing objects
 * changes (PUT) the rows whose objectId is in `existing`, and creates the others, a row with an
 * unknown objectId asking for that objectId (a server that sets ids itself refuses it, and the
 * report says so).
 */
export function importWrites(rows: readonly ImportRow[], update: boolean, existing: ReadonlySet<string>): ImportWrite[] {
  return rows.map((row) => {
    const fields = row.fields ?? {};
    if (!update || !row.objectId) return { method: 'POST', body: fields };
    if (existing.has(row.objectId)) return { method: 'PUT', objectId: row.objectId, body: fields };
    return { method: 'POST', body: { ...fields, objectId: row.objectId } };
  });
}
