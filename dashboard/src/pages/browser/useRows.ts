import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ParseObject, Where } from '../../api/types.ts';
import { FIRST_PAGE, nextCursor, pageQuery, tailQueries, type Cursor, type Sort } from './paging.ts';

export const PAGE_SIZE = 200;

export interface Rows {
  /** The rows loaded: those read from the start, then (after a jump to the end) the last ones. */
  readonly rows: readonly ParseObject[];
  /** After a jump to the end, where the rows not read yet sit (before `rows[gapAt]`); else null. */
  readonly gapAt: number | null;
  /** Objects matching the filter, from a count query; undefined while it runs. */
  readonly total: number | undefined;
  readonly done: boolean;
  readonly loading: boolean;
  readonly problem: string | null;
  loadMore(): void;
  /** Reads the last page of the order (the order reversed), so the end shows without reading the rest. */
  jumpToEnd(): Promise<void>;
  patch(objectId: string, fields: Record<string, unknown>): void;
  prepend(row: ParseObject): void;
  remove(objectIds: ReadonlySet<string>): void;
}

interface Loaded {
  /** Rows from the start of the order, page after page. */
  readonly head: readonly ParseObject[];
  /** The end of the order, read by a jump, until the head reaches it; null without a jump. */
  readonly tail: readonly ParseObject[] | null;
}

const NOTHING: Loaded = { head: [], tail: null };

/** The head joined to the tail when they meet: the head's rows, then the tail's after the last row they share. */
function joined(head: readonly ParseObject[], tail: readonly ParseObject[]): ParseObject[] | null {
  const inHead = new Set(head.map((row) => row.objectId));
  for (let k = tail.length - 1; k >= 0; k--) if (inHead.has(tail[k]!.objectId)) return [...head, ...tail.slice(k + 1)];
  return null;
}

/** The rows of a class under a filter and a sort, read page by page as the grid asks for more. */
/** `epoch` changes to read the rows again under the same filter (after an import). */
export function useRows(api: AppApi, className: string, where: Where, sort: Sort, epoch = 0): Rows {
  const [loaded, setLoadedState] = useState<Loaded>(NOTHING);
  const current = useRef<Loaded>(NOTHING);
  const setLoaded = (next: Loaded) => {
    current.current = next;
    setLoadedState(next);
  };
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const cursor = useRef<Cursor | null>(FIRST_PAGE);
  const busy = useRef(false);
  // A load started under an earlier filter or sort must not add its rows to the new ones.
  const generation = useRef(0);
  const whereKey = JSON.stringify(where);

  const finish = (mine: number, error?: unknown) => {
    if (mine !== generation.current) return;
    busy.current = false;
    setLoading(false);
    if (error !== undefined) setProblem(failureText(error));
  };

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
        const { head, tail } = current.current;
        const meeting = tail && joined([...head, ...page], tail);
        if (meeting) {
          // The rows read from the start reached the end read by the jump: nothing is left between.
          cursor.current = null;
          setLoaded({ head: meeting, tail: null });
        } else {
          setLoaded({ head: [...head, ...page], tail });
        }
        finish(mine);
        setDone(cursor.current === null);
        // An empty phase (every row has a value) goes straight on to the next one.
        if (page.length === 0 && cursor.current) loadMore();
      },
      (error: unknown) => finish(mine, error),
    );
    // The filter by its JSON text: an equal filter built anew must not restart the reading.
  }, [api, className, whereKey, sort, epoch]);

  const jumpToEnd = useCallback(async () => {
    // A page being read joins the head first; the end is read after it.
    while (busy.current) await new Promise((resolve) => setTimeout(resolve, 20));
    if (!cursor.current || current.current.tail) return;
    busy.current = true;
    setLoading(true);
    const mine = generation.current;
    try {
      const last: ParseObject[] = [];
      for (const query of tailQueries(where, sort)) {
        last.push(...(await api.find(className, { ...query, limit: PAGE_SIZE - last.length })));
        if (last.length >= PAGE_SIZE) break;
      }
      if (mine !== generation.current) return;
      const tail = last.reverse();
      const { head } = current.current;
      // Fewer than a page: the tail is the whole order, the head a part of it.
      const meeting = tail.length < PAGE_SIZE ? [...head.filter((row) => !tail.some((t) => t.objectId === row.objectId)), ...tail] : joined(head, tail);
      if (meeting) {
        cursor.current = null;
        setLoaded({ head: meeting, tail: null });
        setDone(true);
      } else {
        setLoaded({ head, tail });
      }
      finish(mine);
    } catch (error) {
      finish(mine, error);
    }
  }, [api, className, whereKey, sort, epoch]);

  // A layout effect: it runs before the grid's own effects, whose first "read more" would otherwise
  // start a page that this reset then drops and reads again.
  useLayoutEffect(() => {
    generation.current += 1;
    cursor.current = FIRST_PAGE;
    busy.current = false;
    setLoaded(NOTHING);
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

  const change = (edit: (rows: readonly ParseObject[]) => readonly ParseObject[]) => {
    const { head, tail } = current.current;
    setLoaded({ head: edit(head), tail: tail && edit(tail) });
  };
  return {
    rows: loaded.tail ? [...loaded.head, ...loaded.tail] : loaded.head,
    gapAt: loaded.tail ? loaded.head.length : null,
    total,
    done,
    loading,
    problem,
    loadMore,
    jumpToEnd,
    patch: (objectId, fields) => change((rows) => rows.map((row) => (row.objectId === objectId ? { ...row, ...fields } : row))),
    prepend: (row) => {
      const { head, tail } = current.current;
      setLoaded({ head: [row, ...head], tail });
      setTotal((n) => (n === undefined ? n : n + 1));
    },
    remove: (objectIds) => {
      change((rows) => rows.filter((row) => !objectIds.has(row.objectId)));
      setTotal((n) => (n === undefined ? n : n - objectIds.size));
    },
  };
}
