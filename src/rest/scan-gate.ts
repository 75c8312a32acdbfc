/**
 * Scans of a class whose automatic index this process is building, taken one at a time.
 *
 * While the index is built (on PostgreSQL: its column filled for every row, then the index made
 * twice over, then the class vacuumed), the class's scanning queries keep arriving, and each
 * reads the whole table. Run side by side, five of them took most of the machine's CPU: the
 * build took 19 s under a load of 32 connections. Scans are bound by CPU, so taking them one at a
 * time answers nearly as many, and leaves the rest to the build, after which the same queries are
 * served by the index. Only this process's scans wait: another process's build is not known here.
 */
interface Building {
  /** The end of the last scan let in: the next one starts after it. */
  tail: Promise<void>;
}

const building = new Map<string, Building>();
const keyOf = (applicationId: string, className: string) => `${applicationId}\u0000${className}`;
const nothing = () => undefined;

/**
 * Runs `build` with the class's scans taken one at a time until it ends. One build of a class
 * runs at a time: the job holds the class's lock across processes (auto-index-job.ts).
 */
export async function whileIndexing<T>(applicationId: string, className: string, build: () => Promise<T>): Promise<T> {
  const key = keyOf(applicationId, className);
  const entry: Building = { tail: Promise.resolve() };
  building.set(key, entry);
  try {
    return await build();
  } finally {
    if (building.get(key) === entry) building.delete(key);
  }
}

/** A scan's turn: `end` once it has read. */
export interface ScanTurn {
  end(): void;
}

/**
 * A scan's wait for its turn while the class's automatic index is built: null, with nothing to
 * wait for, when none is. It resolves 'built' when the index was finished while the scan waited
 * (the query is then planned again, and the index serves it: the scans queued behind the build
 * would otherwise each still read the whole table, one at a time), else the turn, which the
 * caller ends after its read.
 */
export function scanTurn(applicationId: string, className: string): Promise<ScanTurn | 'built'> | null {
  const key = keyOf(applicationId, className);
  const entry = building.get(key);
  if (!entry) return null;
  const before = entry.tail;
  let end = nothing as () => void;
  entry.tail = new Promise<void>((resolve) => (end = resolve));
  return before.then(() => {
    if (building.get(key) === entry) return { end };
    end();
    return 'built' as const;
  });
}
