import type { Column } from './columns.ts';
import { wireValue } from './filters.ts';

/** Columns edited in a larger panel, as JSON, rather than in the cell. */
export function editedAsJson(column: Column): boolean {
  return column.type === 'Array' || column.type === 'Object' || column.type === 'ACL';
}

/** Columns edited in the panel below the grid: JSON, and the File, ACL and Pointer editors with their lists. */
export function editedInPanel(column: Column): boolean {
  return editedAsJson(column) || column.type === 'File' || column.type === 'Pointer';
}

/** The text an editor starts with. */
export function editText(column: Column, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'object') return String(value);
  const typed = value as Record<string, unknown>;
  if (column.type === 'Date') return String(typed.iso ?? '');
  if (column.type === 'GeoPoint') return `${String(typed.latitude)}, ${String(typed.longitude)}`;
  if (column.type === 'Pointer') return String(typed.objectId ?? '');
  return JSON.stringify(value, null, 2);
}

/**
 * What was typed → the value to write, in the column's wire form; throws a sentence a person can
 * act on. An empty editor unsets the field (`__op: Delete`), except for a String, where it is ''.
 */
export function editedValue(column: Column, text: string): unknown {
  if (column.type === 'String') return text;
  if (text.trim() === '') return { __op: 'Delete' };
  switch (column.type) {
    case 'GeoPoint': {
      const parts = text.split(',').map((part) => Number(part.trim()));
      const [latitude, longitude] = parts;
      if (parts.length !== 2 || !Number.isFinite(latitude) || !Number.isFinite(longitude)) throw new Error('Write latitude, longitude (for example 48.85, 2.35).');
      if (Math.abs(latitude!) > 90 || Math.abs(longitude!) > 180) throw new Error('Latitude is between -90 and 90, longitude between -180 and 180.');
      return { __type: 'GeoPoint', latitude, longitude };
    }
    case 'Pointer':
      if (!/^[A-Za-z0-9_-]+$/.test(text.trim())) throw new Error(`Write the objectId of a ${column.targetClass ?? ''} object.`);
      return { __type: 'Pointer', className: column.targetClass, objectId: text.trim() };
    case 'Array':
    case 'Object':
    case 'ACL': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new Error(`Not valid JSON: ${(error as Error).message}`);
      }
      if (column.type === 'Array' && !Array.isArray(parsed)) throw new Error('An Array column takes a JSON array: [ … ].');
      if (column.type !== 'Array' && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) throw new Error(`An ${column.type} column takes a JSON object: { … }.`);
      return parsed;
    }
    default:
      return wireValue(column.type, text);
  }
}
