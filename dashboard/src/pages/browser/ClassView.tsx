import { useCallback, useEffect, useMemo, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema, ParseObject } from '../../api/types.ts';
import { columnsOf, type Column } from './columns.ts';
import { filterClause, filtersWhere, type Filter } from './filters.ts';
import type { Sort } from './paging.ts';
import { viewFromUrl, viewToUrl } from './view-url.ts';
import { useRows } from './useRows.ts';
import { Grid } from './Grid.tsx';
import { FilterBar } from './FilterBar.tsx';
import { ColumnChooser } from './ColumnChooser.tsx';
import { AddColumnForm } from './SchemaForms.tsx';
import { ExportImport } from './ExportImport.tsx';
import { navigate } from '../../router.ts';

/** One class: its filters, columns and rows, and the actions on rows. */
export function ClassView(props: { api: AppApi; schema: ClassSchema; onSchemaChange(schema: ClassSchema): void }) {
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
  const where = useMemo(() => filtersWhere(filters, typeOf), [filters, typeOf]);
  const [epoch, setEpoch] = useState(0);
  const rows = useRows(api, schema.className, where, sort, epoch);
  const shown = columns.filter((column) => !hidden.has(column.name));

  const edit = async (row: ParseObject, column: Column, value: unknown): Promise<string | null> => {
    try {
      const { updatedAt } = await api.update(schema.className, row.objectId, { [column.name]: value });
      const isDelete = typeof value === 'object' && value !== null && (value as { __op?: unknown }).__op === 'Delete';
      rows.patch(row.objectId, { [column.name]: isDelete ? undefined : value, updatedAt });
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
      {rows.problem && <p role="alert" className="problem">{rows.problem}</p>}
      <Grid
        // A new filter or sort starts again at the top, with the focus on its first cell.
        key={JSON.stringify([where, sort])}
        columns={shown}
        rows={rows.rows}
        done={rows.done}
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
  const column = columns.find((c) => c.name === filter.field);
  if (!column) return false;
  try {
    filterClause(filter, column.type);
    return true;
  } catch {
    return false;
  }
}
