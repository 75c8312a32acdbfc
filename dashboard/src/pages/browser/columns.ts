import type { ClassSchema, FieldType } from '../../api/types.ts';

export type ColumnType = FieldType | 'id' | 'timestamp';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  readonly targetClass?: string | undefined;
}

/** objectId first, the class's own fields in schema order, the timestamps and ACL last. */
export function columnsOf(schema: ClassSchema): Column[] {
  const own: Column[] = [];
  for (const [name, field] of Object.entries(schema.fields)) {
    if (name === 'objectId' || name === 'createdAt' || name === 'updatedAt' || name === 'ACL') continue;
    own.push({ name, type: field.type, targetClass: field.targetClass });
  }
  return [{ name: 'objectId', type: 'id' }, ...own, { name: 'createdAt', type: 'timestamp' }, { name: 'updatedAt', type: 'timestamp' }, ...('ACL' in schema.fields ? [{ name: 'ACL', type: 'ACL' as const }] : [])];
}

const EDITABLE: ReadonlySet<ColumnType> = new Set(['String', 'Number', 'Boolean', 'Date', 'GeoPoint', 'Pointer', 'Array', 'Object', 'ACL', 'File']);

/** Types edited in the grid today; the others (Relation, Bytes, Polygon) are shown only. */
export function editable(column: Column): boolean {
  return EDITABLE.has(column.type);
}

/** One line of text for a cell. */
export function cellText(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value !== 'object') return String(value);
  const typed = value as Record<string, unknown>;
  switch (typed.__type) {
    case 'Date':
      return String(typed.iso);
    case 'Pointer':
      return `${String(typed.className)} ${String(typed.objectId)}`;
    case 'GeoPoint':
      return `(${String(typed.latitude)}, ${String(typed.longitude)})`;
    case 'File':
      return String(typed.name);
    case 'Relation':
      return `Relation → ${String(typed.className)}`;
    default: {
      const json = JSON.stringify(value);
      return json.length > 200 ? `${json.slice(0, 200)}…` : json;
    }
  }
}
