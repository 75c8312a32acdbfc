import type { ParseObject } from '../../api/types.ts';
import { cellText, type Column } from './columns.ts';
import { isImageName } from './pickers.ts';

/** Where a click in a cell leads: one object of a class, or the members of a row's Relation. */
export type Follow =
  | { readonly kind: 'object'; readonly className: string; readonly objectId: string }
  | { readonly kind: 'members'; readonly className: string; readonly owner: { readonly className: string; readonly objectId: string }; readonly key: string };

/**
 * A value as a cell or the object panel shows it: a File as a thumbnail (images) or a link, a
 * Pointer with a link to its object, a Relation with a link to its members; the rest as text.
 */
export function CellValue(props: { className: string; row: ParseObject; column: Column; onFollow(follow: Follow): void }) {
  const { row, column } = props;
  const value = row[column.name] as Record<string, unknown> | undefined;
  const stop = (event: { stopPropagation(): void }) => event.stopPropagation();
  if (column.type === 'Relation' && column.targetClass) {
    const target = column.targetClass;
    return (
      <button type="button" className="link follow" onDoubleClick={stop} aria-label={`Members of ${column.name} of ${row.objectId}`} onClick={() => props.onFollow({ kind: 'members', className: target, owner: { className: props.className, objectId: row.objectId }, key: column.name })}>
        members →
      </button>
    );
  }
  if (value?.__type === 'Pointer' && typeof value.className === 'string' && typeof value.objectId === 'string') {
    const target = { kind: 'object' as const, className: value.className, objectId: value.objectId };
    return (
      <>
        {/* First in the cell, so a long id cut by the cell's width never hides it. */}
        <button type="button" className="link follow" onDoubleClick={stop} aria-label={`Open ${target.className} ${target.objectId}`} onClick={() => props.onFollow(target)}>→</button>
        {cellText(value)}
      </>
    );
  }
  if (value?.__type === 'File' && typeof value.name === 'string') {
    const url = typeof value.url === 'string' ? value.url : undefined;
    if (!url) return <>{value.name}</>;
    // The thumbnail and name are the cell's (a double-click edits it); the small link opens the file.
    return (
      <>
        {isImageName(value.name) && <img className="thumb" src={url} alt={`Preview of ${value.name}`} />}
        {value.name}{' '}
        <a href={url} target="_blank" rel="noreferrer" className="file-link" onDoubleClick={stop} aria-label={`Open the file ${value.name}`}>↗</a>
      </>
    );
  }
  return <>{cellText(value)}</>;
}
