import { useCallback, useEffect, useRef, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ParseObject, Where } from '../../api/types.ts';
import { FIRST_PAGE, nextCursor, pageQuery, type Cursor, type Sort } from './paging.ts';

export const PAGE_SIZE = 200;

export interface Rows {
  readonly rows: readonly ParseObject[];
  /** Objects matching the filter, from a count query; undefined while it runs. */
  readonly total: number | undefined;
  readonly done: boolean;
  readonly loading: boolean;
  readonly problem: string | null;
  loadMore(): void;
  patch(objectId: string, fields: Record<string, unknown>): void;
  prepend(row: ParseObject): void;
  remove(objectIds: ReadonlySet<string>): void;
}

/** The rows of a class under a filter and a sort, read page by page as the grid asks for more. */
/** `epoch` changes to read the rows again under the same filter (after an import). */
export function useRows(api: AppApi, className: string, where: Where, sort: Sort, epoch = 0): Rows {
  const [rows, setRows] = useState<readonly ParseObject[]>([]);
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const cursor = useRef<Cursor | null>(FIRST_PAGE);
  const busy = useRef(false);
  // A load started under an earlier filter or sort must not add its rows to the new ones.
  const generation = useRef(0);
  const whereKey = JSON.stringify(where);

  const loadMore = useCallback(() => {
    const from = cursor.current;
    if (busy.current || !from) return;
    busy.current = true;
    setLoading(true);
    const mine = generation.current;
    const query = pageQuery(where, sort, from);
    api.find(className, { ...query, limit: PAGE_SIZE }).then(
      (page) => {
        if (mine !== generation.current) return;
        cursor.current = nextCursor(sort, from, page, PAGE_SIZE);
        setRows((current) => [...current, ...page]);
        busy.current = false;
        setLoading(false);
        setDone(cursor.current === null);
        // An empty phase (every row has a value) goes straight on to the next one.
        if (page.length === 0 && cursor.current) loadMore();
      },
      (error: unknown) => {
        if (mine !== generation.current) return;
        busy.current = false;
        setLoading(false);
        setProblem(failureText(error));
      },
    );
    // The filter by its JSON text: an equal filter built anew must not restart the reading.
  }, [api, className, whereKey, sort, epoch]);

  useEffect(() => {
    generation.current += 1;
    cursor.current = FIRST_PAGE;
    busy.current = false;
    setRows([]);
    setDone(false);
    setProblem(null);
    setTotal(undefined);
    loadMore();
    const mine = generation.current;
    api.count(className, where).then(
      (count) => mine === generation.current && setTotal(count),
      () => undefined,
    );
    // loadMore changes exactly when the class, filter or sort does: then the rows start over.
  }, [loadMore]);

  return {
    rows,
    total,
    done,
    loading,
    problem,
    loadMore,
    patch: (objectId, fields) => setRows((current) => current.map((row) => (row.objectId === objectId ? { ...row, ...fields } : row))),
    prepend: (row) => {
      setRows((current) => [row, ...current]);
      setTotal((current) => (current === undefined ? current : current + 1));
    },
    remove: (objectIds) => {
      setRows((current) => current.filter((row) => !objectIds.has(row.objectId)));
      setTotal((current) => (current === undefined ? current : current - objectIds.size));
    },
  };
}
