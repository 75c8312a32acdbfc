import { useCallback, useEffect, useRef, useState } from 'react';
import { failureText } from '../../api/errors.ts';
import type { ParseObject } from '../../api/types.ts';

/**
 * A class read in keyset pages by objectId (the users, sessions and installations pages; never
 * `skip`): `read(after)` asks for the page after that objectId (undefined: the first). The first
 * page is read again whenever a value of `reloadOn` (the page's filters) changes, and by
 * `load(false)`; `load(true)` appends the next. A refusal is said in `notice`.
 */
export function useObjectIdPages(read: ((after: string | undefined) => Promise<ParseObject[]>) | null, pageSize: number, reloadOn: readonly unknown[]) {
  const [rows, setRows] = useState<readonly ParseObject[] | null>(null);
  const [more, setMore] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // The latest reader and rows, so `load` keeps its identity while pages are read.
  const reader = useRef(read);
  reader.current = read;
  const shown = useRef(rows);
  shown.current = rows;
  // Only the latest read is shown: answers may come back out of order (a filter typed quickly),
  // and an older one would show the rows of filters no longer set.
  const latest = useRef(0);
  const load = useCallback(
    async (append: boolean) => {
      if (!reader.current) return;
      const ticket = ++latest.current;
      try {
        const page = await reader.current(append ? shown.current?.at(-1)?.objectId : undefined);
        if (ticket !== latest.current) return;
        setRows((current) => (append && current ? [...current, ...page] : page));
        setMore(page.length === pageSize);
      } catch (error) {
        if (ticket === latest.current) setNotice(failureText(error));
      }
    },
    [pageSize],
  );
  useEffect(() => {
    void load(false);
  }, reloadOn);
  return { rows, setRows, more, load, notice, setNotice };
}
