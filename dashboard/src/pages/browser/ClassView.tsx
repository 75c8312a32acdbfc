import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema, ParseObject, Where } from '../../api/types.ts';
import { columnsOf, type Column } from './columns.ts';
import { filterClause, filtersWhere, RELATED_TO, type Filter } from './filters.ts';
import { DEFAULT_SORT, type Sort } from './paging.ts';
import { viewFromUrl, viewSearch, viewToUrl } from './view-url.ts';
import type { Follow } from './CellValue.tsx';
import { ObjectPanel } from './ObjectPanel.tsx';
import { CellEditor } from './CellEditor.tsx';

// The editors with lists and uploads are a chunk of their own: most visits edit no such cell.
const AclEditor = lazy(() => import('./panel-editors.ts').then((module) => ({ default: module.AclEditor })));
const FileEditor = lazy(() => import('./panel-editors.ts').then((module) => ({ default: module.FileEditor })));
const PointerPicker = lazy(() => import('./panel-editors.ts').then((module) => ({ default: module.PointerPicker })));
import { useRows } from './useRows.ts';
import { Grid } from './Grid.tsx';
import { FilterBar } from './FilterBar.tsx';
import { ColumnChooser } from './ColumnChooser.tsx';
import { AddColumnForm } from './SchemaForms.tsx';
import { ExportImport } from './ExportImport.tsx';
import { navigate } from '../../router.ts';

/** Where the browser goes next: a class, one of its objects, or its view given as a URL query. */
export interface Destination {
  readonly className: string;
  readonly objectId?: string;
  readonly search?: string;
}

/** One class: its filters, columns and rows, and the actions on rows; with `objectId`, that object alone and its fields. */
export function ClassView(props: { api: AppApi; schema: ClassSchema; objectId?: string | undefined; schemaOf(className: string): ClassSchema | undefined; onOpen(destination: Destination): void; onSchemaChange(schema: ClassSchema): void }) {
  const { api, schema } = props;
  const columns = useMemo(() => columnsOf(schema), [schema]);
  // The filters and the sort are in the page's URL, so that a view can be shared or reloaded.
  const [filters, setFilters] = useState<readonly Filter[]>(() => viewFromUrl().filters.filter((filter) => fits(filter, columns)));
  const [sort, setSort] = useState<Sort>(() => viewFromUrl().sort);
  useEffect(() => viewToUrl(filters, sort), [filters, sort]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [added, setAdded] = useState(0);
  const typeOf = useCallback((field: string) => columns.find((column) => column.name === field)?.type ?? 'String', [columns]);
  const targetOf = useCallback((field: string) => columns.find((column) => column.name === field)?.targetClass, [columns]);
  const where = useMemo<Where>(() => {
    const filtered = filtersWhere(filters, typeOf, targetOf);
    if (!props.objectId) return filtered;
    // One object's URL: that object alone, under the filters still (they may leave it out).
    return Object.keys(filtered).length ? { $and: [filtered, { objectId: props.objectId }] } : { objectId: props.objectId };
  }, [filters, typeOf, targetOf, props.objectId]);
  const [epoch, setEpoch] = useState(0);
  const [edits, setEdits] = useState(0);
  const [revealLast, setRevealLast] = useState(0);
  const rows = useRows(api, schema.className, where, sort, epoch);
  const shown = columns.filter((column) => !hidden.has(column.name));

  const edit = async (row: ParseObject, column: Column, value: unknown): Promise<string | null> => {
    try {
      const { updatedAt } = await api.update(schema.className, row.objectId, { [column.name]: value });
      const isDelete = typeof value === 'object' && value !== null && (value as { __op?: unknown }).__op === 'Delete';
      rows.patch(row.objectId, { [column.name]: isDelete ? undefined : value, updatedAt });
      setEdits((n) => n + 1);
      return null;
    } catch (error) {
      return `${column.name} of ${row.objectId} was not saved: ${failureText(error)}`;
    }
  };
  const addRow = async () => {
    setNotice(null);
    try {
      const created = await api.create(schema.className, {});
      rows.prepend({ objectId: created.objectId, createdAt: created.createdAt, updatedAt: created.createdAt });
      setAdded((n) => n + 1);
      setNotice(`Added ${created.objectId}.`);
    } catch (error) {
      setNotice(failureText(error));
    }
  };
  const jumpToEnd = async () => {
    await rows.jumpToEnd();
    setRevealLast((n) => n + 1);
  };
  const follow = (to: Follow) => {
    if (to.kind === 'object') props.onOpen({ className: to.className, objectId: to.objectId });
    else props.onOpen({ className: to.className, search: viewSearch([{ field: RELATED_TO, op: 'memberOf', value: `${to.owner.className}.${to.owner.objectId}.${to.key}` }], DEFAULT_SORT) });
  };
  const panelEditor = (column: Column, value: unknown, onSave: (value: unknown) => void, onCancel: () => void) => {
    const editor =
      column.type === 'ACL' ? <AclEditor api={api} column={column} value={value} onSave={onSave} onCancel={onCancel} />
      : column.type === 'File' ? <FileEditor api={api} column={column} value={value} onSave={onSave} onCancel={onCancel} />
      : column.type === 'Pointer' ? <PointerPicker api={api} column={column} target={column.targetClass ? props.schemaOf(column.targetClass) : undefined} value={value} onSave={onSave} onCancel={onCancel} />
      : <CellEditor column={column} value={value} onSave={onSave} onCancel={onCancel} />;
    return <Suspense fallback={<p className="muted">Loading the editor…</p>}>{editor}</Suspense>;
  };
  const deleteSelected = async () => {
    setConfirmDelete(false);
    const ids = [...selected];
    try {
      const refused = await api.deleteMany(schema.className, ids);
      const refusedIds = new Set(refused.map((r) => r.objectId));
      rows.remove(new Set(ids.filter((id) => !refusedIds.has(id))));
      setSelected(refusedIds);
      setNotice(refused.length ? `${ids.length - refused.length} deleted; ${refused.length} refused: ${refused[0]!.error}` : `${ids.length} deleted.`);
    } catch (error) {
      setNotice(failureText(error));
    }
  };

  return (
    <div className="class-view-inner">
      <div className="toolbar">
        <h2>{schema.className}</h2>
        <span className="muted" role="status" data-total>
          {rows.total === undefined ? 'counting…' : `${rows.total.toLocaleString('en')} ${rows.total === 1 ? 'object' : 'objects'}`}
        </span>
        <span className="spacer" />
        <button type="button" onClick={jumpToEnd} title="Ctrl+End" aria-label="Last rows">Last</button>
        <button type="button" onClick={addRow}>Add row</button>
        <button type="button" className="danger" disabled={selected.size === 0} onClick={() => setConfirmDelete(true)}>
          Delete selected ({selected.size})
        </button>
        <ColumnChooser columns={columns} hidden={hidden} onChange={setHidden} />
        <button type="button" onClick={() => navigate({ page: 'schema', applicationId: api.applicationId, className: schema.className })}>Schema</button>
        <AddColumnForm api={api} className={schema.className} onChanged={props.onSchemaChange} />
      </div>
      <ExportImport
        api={api}
        className={schema.className}
        columns={columns}
        where={where}
        total={rows.total}
        onImported={() => {
          setEpoch((n) => n + 1);
          // An import may have added columns: the class's schema is read again.
          api.schemas().then((all) => {
            const mine = all.find((s) => s.className === schema.className);
            if (mine) props.onSchemaChange(mine);
          }, () => undefined);
        }}
      />
      {confirmDelete && (
        <div className="confirm" role="alertdialog" aria-label="Confirm deletion">
          <span>
            Delete {selected.size} {selected.size === 1 ? 'row' : 'rows'} of {schema.className}? This cannot be undone.
          </span>
          <button type="button" className="danger" onClick={deleteSelected}>Delete</button>
          <button type="button" onClick={() => setConfirmDelete(false)}>Cancel</button>
        </div>
      )}
      {notice && <p role="status" className="notice">{notice}</p>}
      <FilterBar columns={columns} filters={filters} onChange={setFilters} />
      {props.objectId && (
        <ObjectPanel api={api} className={schema.className} objectId={props.objectId} columns={columns} epoch={edits} onFollow={follow} onClose={() => props.onOpen({ className: schema.className, search: viewSearch(filters, sort) })} />
      )}
      {rows.problem && <p role="alert" className="problem">{rows.problem}</p>}
      <Grid
        // A new filter or sort starts again at the top, with the focus on its first cell.
        key={JSON.stringify([where, sort])}
        className={schema.className}
        columns={shown}
        rows={rows.rows}
        gapAt={rows.gapAt}
        gapSize={rows.total === undefined ? undefined : Math.max(0, rows.total - rows.rows.length)}
        done={rows.done}
        revealLast={revealLast}
        onJumpToEnd={jumpToEnd}
        onFollow={follow}
        panelEditor={panelEditor}
        sort={sort}
        selected={selected}
        revealFirst={added}
        onSort={setSort}
        onSelect={(objectId, on) =>
          setSelected((current) => {
            const next = new Set(current);
            if (on) next.add(objectId);
            else next.delete(objectId);
            return next;
          })
        }
        onNeedMore={rows.loadMore}
        onEdit={edit}
      />
    </div>
  );
}

/** A filter from a URL typed by hand may name no column or hold a value of another type: it is left out. */
function fits(filter: Filter, columns: readonly Column[]): boolean {
  if ((filter.field === RELATED_TO) !== (filter.op === 'memberOf')) return false;
  const column = filter.field === RELATED_TO ? { type: 'String' as const, targetClass: undefined } : columns.find((c) => c.name === filter.field);
  if (!column) return false;
  try {
    filterClause(filter, column.type, column.targetClass);
    return true;
  } catch {
    return false;
  }
}
