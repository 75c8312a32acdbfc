import { useCallback, useEffect, useState } from 'react';
import { failureText } from '../../api/errors.ts';

/** One page of a list the server reads after a cursor; `next` is the cursor of the page after it. */
export interface CursorPage<T> {
  readonly results: T[];
  readonly next?: string;
}

/**
 * A list read in cursor pages (the files and the outbox): the first page when `fetchPage` is
 * given or changes, `load(next)` for the one after, `load('')` to read it anew. A refusal is
 * said in `notice`. `fetchPage` must keep its identity between renders (useMemo).
 */
export function useCursorPages<T>(fetchPage: ((cursor: string) => Promise<CursorPage<T>>) | null) {
  const [items, setItems] = useState<readonly T[] | null>(null);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const load = useCallback(
    async (cursor: string) => {
      if (!fetchPage) return;
      try {
        const page = await fetchPage(cursor);
        setItems((current) => (cursor && current ? [...current, ...page.results] : page.results));
        setNext(page.next);
      } catch (error) {
        setNotice(failureText(error));
      }
    },
    [fetchPage],
  );
  useEffect(() => void load(''), [load]);
  return { items, setItems, next, load, notice, setNotice };
}
