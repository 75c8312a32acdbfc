import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ParseObject } from '../../api/types.ts';
import { editable, type Column } from './columns.ts';
import { CellEditor } from './CellEditor.tsx';
import { CellValue, type Follow } from './CellValue.tsx';
import { editedInPanel } from './edit-values.ts';
import type { Sort } from './paging.ts';
import { sortable } from './paging.ts';

const ROW_HEIGHT = 32;
const SELECT_WIDTH = 36;
/** The sticky header above the rows, inside the scrolled element (styles.css .grid-head). */
const HEADER_HEIGHT = 40;

function widthOf(column: Column): number {
  return column.name === 'objectId' ? 130 : column.type === 'timestamp' ? 210 : column.type === 'Boolean' ? 100 : 180;
}

export interface GridProps {
  readonly className: string;
  readonly columns: readonly Column[];
  readonly rows: readonly ParseObject[];
  /** After a jump to the end: the rows not read yet sit before `rows[gapAt]`, `gapSize` of them when known. */
  readonly gapAt: number | null;
  readonly gapSize: number | undefined;
  readonly done: boolean;
  readonly sort: Sort;
  readonly selected: ReadonlySet<string>;
  /** Changes when a row was put first (an added row): the grid scrolls up to show it. */
  readonly revealFirst: number;
  /** Changes after a jump to the end: the grid scrolls down to the last row and focuses it. */
  readonly revealLast: number;
  onSort(sort: Sort): void;
  onSelect(objectId: string, on: boolean): void;
  onNeedMore(): void;
  /** Ctrl+End: the end of the class is read and shown. */
  onJumpToEnd(): void;
  onFollow(follow: Follow): void;
  /** The editor shown below the grid for a column edited in a panel (File, ACL, Pointer, JSON). */
  panelEditor(column: Column, value: unknown, onSave: (value: unknown) => void, onCancel: () => void): ReactNode;
  /** Saves one cell; resolves with a message when the server refused it. */
  onEdit(row: ParseObject, column: Column, value: unknown): Promise<string | null>;
}

/**
 * Only the rows in view (and a few around them) are in the DOM, whatever the number loaded; the
 * grid asks for the next page when the last loaded rows come near.
 */
export function Grid(props: GridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState<{ row: number; col: number }>({ row: 0, col: 0 });
  const [editing, setEditing] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  /** The cell to focus once it is rendered (`row:col`), or null. */
  const focusWanted = useRef<string | null>(null);
  const gapAt = props.gapAt;
  // With a gap, the grid's rows are the head, one gap row, then the tail; else the rows and, while
  // more are coming, a loading row.
  const shownRows = props.rows.length + (gapAt === null ? 0 : 1);
  const count = shownRows + (props.done || gapAt !== null ? 0 : 1);
  const rowAt = (index: number): ParseObject | undefined => (gapAt === null || index < gapAt ? props.rows[index] : index === gapAt ? undefined : props.rows[index - 1]);
  // The rows start below the header: scrollMargin places them there, and scrollPaddingStart keeps a
  // row scrolled to the top from hiding under it.
  const virtualizer = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12, scrollMargin: HEADER_HEIGHT, scrollPaddingStart: HEADER_HEIGHT });
  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items[items.length - 1]?.index ?? 0;
  const { onNeedMore } = props;
  // More rows are read where the loaded ones stop: the end of the grid, or the gap when it is near.
  const edge = gapAt ?? props.rows.length;

  useEffect(() => {
    if (!props.done && lastIndex >= edge - 40 && firstIndex <= edge + 1) onNeedMore();
  }, [firstIndex, lastIndex, edge, props.done, onNeedMore]);

  useEffect(() => {
    if (props.revealFirst) virtualizer.scrollToIndex(0);
  }, [props.revealFirst, virtualizer]);

  useEffect(() => {
    if (props.revealLast) move(shownRows - 1, active.col);
  }, [props.revealLast]);

  const width = SELECT_WIDTH + props.columns.reduce((sum, column) => sum + widthOf(column), 0);
  const move = (row: number, col: number) => {
    const next = { row: Math.max(0, Math.min(shownRows - 1, row)), col: Math.max(0, Math.min(props.columns.length - 1, col)) };
    focusWanted.current = `${next.row}:${next.col}`;
    setActive(next);
    virtualizer.scrollToIndex(next.row);
  };
  // The moved-to cell takes the focus once it is rendered (it may have been scrolled in first).
  useEffect(() => {
    // The wanted cell, not the active one: a move made in another effect of this commit is not rendered yet.
    if (!focusWanted.current || editing) return;
    const cell = scroller.current?.querySelector<HTMLElement>(`[data-cell="${focusWanted.current}"]`);
    if (cell) {
      cell.focus({ preventScroll: true });
      focusWanted.current = null;
    }
  });
  const keyDown = (event: KeyboardEvent) => {
    if (editing) return;
    const moves: Record<string, [number, number]> = { ArrowDown: [1, 0], ArrowUp: [-1, 0], ArrowRight: [0, 1], ArrowLeft: [0, -1], PageDown: [20, 0], PageUp: [-20, 0] };
    const step = moves[event.key];
    if (event.key === 'End' && event.ctrlKey) {
      event.preventDefault();
      if (props.done) move(shownRows - 1, active.col);
      else props.onJumpToEnd();
    } else if (event.key === 'Home' && event.ctrlKey) {
      event.preventDefault();
      move(0, active.col);
    } else if (step) {
      event.preventDefault();
      move(active.row + step[0], active.col + step[1]);
    } else if (event.key === 'Enter' && rowAt(active.row) && props.columns[active.col] && editable(props.columns[active.col]!)) {
      event.preventDefault();
      setEditing(true);
    }
  };
  // Arrays, objects, ACLs, Files and Pointers are edited in a panel below the grid: a row is too small.
  const activeColumn = props.columns[active.col];
  const panelColumn = activeColumn && editedInPanel(activeColumn) ? activeColumn : undefined;
  const activeRow = rowAt(active.row);
  const save = async (value: unknown) => {
    const row = rowAt(active.row);
    const column = props.columns[active.col];
    setEditing(false);
    if (!row || !column) return;
    setProblem(await props.onEdit(row, column, value));
  };

  return (
    <div className="grid-wrap">
      {problem && <p role="alert" className="problem">{problem}</p>}
      <div className="grid" ref={scroller} role="grid" aria-rowcount={count + 1} aria-colcount={props.columns.length + 1} data-gap-at={gapAt ?? undefined} onKeyDown={keyDown}>
        <div className="grid-head" role="row" style={{ width }}>
          <div role="columnheader" className="cell select" style={{ width: SELECT_WIDTH }}>
            <span className="visually-hidden">Selected</span>
          </div>
          {props.columns.map((column) => {
            const sorted = props.sort.field === column.name;
            return (
              <div key={column.name} role="columnheader" className="cell" style={{ width: widthOf(column) }} aria-sort={sorted ? (props.sort.descending ? 'descending' : 'ascending') : 'none'}>
                {sortable(column.type) ? (
                  <button type="button" className="sort" onClick={() => props.onSort({ field: column.name, descending: sorted && !props.sort.descending })} aria-label={`Sort by ${column.name}`}>
                    {column.name} {sorted ? (props.sort.descending ? '▼' : '▲') : ''}
                  </button>
                ) : (
                  <span>{column.name}</span>
                )}
                <span className="type">{column.type === 'Pointer' ? `→ ${column.targetClass}` : column.type === 'Relation' ? `Relation → ${column.targetClass}` : column.type}</span>
              </div>
            );
          })}
        </div>
        <div style={{ height: virtualizer.getTotalSize(), width, position: 'relative' }}>
          {items.map((item) => {
            const row = rowAt(item.index);
            if (!row && item.index === gapAt) {
              return (
                <div key="gap" className="grid-row gap" role="row" data-gap style={{ transform: `translateY(${item.start - HEADER_HEIGHT}px)`, width }}>
                  <div role="gridcell" className="cell">… {props.gapSize === undefined ? 'more' : props.gapSize.toLocaleString('en')} rows … (read as you scroll here)</div>
                </div>
              );
            }
            if (!row) {
              return (
                <div key="loading" className="grid-row loading" role="row" style={{ transform: `translateY(${item.start - HEADER_HEIGHT}px)`, width }}>
                  <div role="gridcell" className="cell">Loading…</div>
                </div>
              );
            }
            const editingHere = editing && active.row === item.index;
            return (
              <div key={row.objectId} className={`grid-row${props.selected.has(row.objectId) ? ' selected' : ''}`} role="row" aria-rowindex={item.index + 2} data-object-id={row.objectId} style={{ transform: `translateY(${item.start - HEADER_HEIGHT}px)`, width, zIndex: editingHere ? 1 : undefined }}>
                <div role="gridcell" className="cell select" style={{ width: SELECT_WIDTH }}>
                  <input type="checkbox" checked={props.selected.has(row.objectId)} onChange={(e) => props.onSelect(row.objectId, e.target.checked)} aria-label={`Select ${row.objectId}`} />
                </div>
                {props.columns.map((column, col) => {
                  const isActive = active.row === item.index && active.col === col;
                  const value = row[column.name];
                  const inCell = isActive && editing && !editedInPanel(column);
                  return (
                    <div
                      key={column.name}
                      role="gridcell"
                      className={`cell${isActive ? ' active' : ''}${inCell ? ' editing' : ''}${value === null ? ' null' : ''}`}
                      style={{ width: widthOf(column) }}
                      tabIndex={isActive ? 0 : -1}
                      data-cell={`${item.index}:${col}`}
                      data-column={column.name}
                      onClick={() => setActive({ row: item.index, col })}
                      onDoubleClick={() => {
                        setActive({ row: item.index, col });
                        if (editable(column)) setEditing(true);
                      }}
                    >
                      {inCell ? <CellEditor column={column} value={value} onSave={save} onCancel={() => setEditing(false)} /> : <CellValue className={props.className} row={row} column={column} onFollow={props.onFollow} />}
                    </div>
                  );
                })}
              </div>
            );
          })}
        </div>
      </div>
      {editing && panelColumn && activeRow && (
        <div key={`${activeRow.objectId}/${panelColumn.name}`}>{props.panelEditor(panelColumn, activeRow[panelColumn.name], save, () => setEditing(false))}</div>
      )}
    </div>
  );
}
