import type { FieldType } from '../schema/types.ts';
import type { FieldRef, ValueKind } from './ast.ts';

export interface FieldAccess {
  readonly field: FieldRef;
  readonly as: ValueKind | 'json';
}

const COLUMNS = new Set(['objectId', 'createdAt', 'updatedAt']);

/**
 * How a top-level field is read in SQL, from its schema type. Queries, sort keys and indexes all
 * go through here, so an index created through the schema API has exactly the expression the
 * query compiler emits and the database can use it.
 */
export function fieldAccess(name: string, type: FieldType | undefined): FieldAccess {
  if (COLUMNS.has(name)) return { field: { kind: 'column', column: name as 'objectId' | 'createdAt' | 'updatedAt' }, as: 'text' };
  switch (type?.type) {
    case 'String':
      return { field: { kind: 'doc', path: [name] }, as: 'text' };
    case 'Number':
      return { field: { kind: 'doc', path: [name] }, as: 'number' };
    case 'Boolean':
      return { field: { kind: 'doc', path: [name] }, as: 'boolean' };
    case 'Date':
      return { field: { kind: 'doc', path: [name, 'iso'] }, as: 'text' };
    case 'Pointer':
      return { field: { kind: 'doc', path: [name, 'objectId'] }, as: 'text' };
    case 'File':
      return { field: { kind: 'doc', path: [name, 'name'] }, as: 'text' };
    default:
      return { field: { kind: 'doc', path: [name], untyped: true }, as: 'json' };
  }
}
