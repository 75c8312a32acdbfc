import type { Client } from 'pg';
import { pg } from './pg-module.ts';
import type { SharedSlots, SlotHold } from '../driver.ts';
import { OneAtATime } from './one-at-a-time.ts';

/** The connection holding this process's slots, and which slots of which key it holds. */
interface Session {
  readonly client: Promise<Client>;
  readonly held: Map<string, Set<number>>;
}

/**
 * Slots shared by every process on the database, as PostgreSQL advisory locks keyed by
 * (hashtext(key), slot number), held by one connection of this process kept for them alone.
 * A lock is held until given back or until its connection ends, so a process that dies frees
 * its slots at once. The two-key form is a key space of its own, apart from the one-key
 * transaction locks of schema changes.
 *
 * A session may take an advisory lock it already holds (the lock counts up), so PostgreSQL
 * alone would hand one process the same slot twice: the slots this process holds are left out
 * of each take, and takes run one after another so that each knows what the last one took.
 * Releases take their turn in the same line: the connection runs one statement at a time.
 */
export class PostgresSharedSlots implements SharedSlots {
  private session: Session | null = null;
  /** Takes and releases, one statement at a time on the one connection they share. */
  private readonly line = new OneAtATime();

  constructor(private readonly url: string) {}

  take(key: string, count: number): Promise<SlotHold | null> {
    return this.line.run(() => this.takeNow(key, count));
  }

  private async takeNow(key: string, count: number): Promise<SlotHold | null> {
    if (count <= 0) return null;
    const session = this.open();
    const client = await session.client;
    const mine = session.held.get(key) ?? new Set<number>();
    const candidates = Array.from({ length: count }, (_, slot) => slot).filter((slot) => !mine.has(slot));
    if (candidates.length === 0) return null;
    // The lock is the only condition, tried row by row under the LIMIT: the first free slot is
    // locked, and no other. (Beside another condition, PostgreSQL may order it first.)
    const { rows } = await client.query<{ slot: number }>(
      'SELECT "s" AS "slot" FROM unnest($2::int[]) AS "s" WHERE pg_try_advisory_lock(hashtext($1), "s") LIMIT 1',
      [key, candidates],
    );
    const slot = rows[0]?.slot;
    if (slot === undefined) return null;
    mine.add(slot);
    session.held.set(key, mine);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        // A lock of a connection since lost went with it, and its session with it.
        if (this.session !== session) return;
        mine.delete(slot);
        if (mine.size === 0 && session.held.get(key) === mine) session.held.delete(key);
        await this.line.run(() => client.query('SELECT pg_advisory_unlock(hashtext($1), $2::int)', [key, slot])).catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = null;
    if (session) await (await session.client.catch(() => null))?.end().catch(() => undefined);
  }

  private open(): Session {
    if (this.session) return this.session;
    const client = new pg.Client({ connectionString: this.url });
    const session: Session = { client: client.connect().then(() => client), held: new Map() };
    this.session = session;
    const forget = () => {
      if (this.session === session) this.session = null;
    };
    // A lost connection took its locks with it; the next take opens another.
    client.on('error', forget);
    client.on('end', forget);
    session.client.catch(forget);
    return session;
  }
}
