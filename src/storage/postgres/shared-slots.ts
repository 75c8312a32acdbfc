import pg from 'pg';
import type { SharedSlots, SlotHold } from '../port.ts';

/**
 * Slots shared by every process on the database, as PostgreSQL advisory locks keyed by
 * (hashtext(key), slot number), held by one connection of this process kept for them alone.
 * A lock is held until given back or until its connection ends, so a process that dies frees
 * its slots at once. The two-key form is a key space of its own, apart from the one-key
 * transaction locks of schema changes.
 */
export class PostgresSharedSlots implements SharedSlots {
  private connection: Promise<pg.Client> | null = null;

  constructor(private readonly url: string) {}

  async take(key: string, count: number): Promise<SlotHold | null> {
    if (count <= 0) return null;
    const client = await this.client();
    // The filter runs row by row under the LIMIT: the first free slot is locked, and no other.
    const { rows } = await client.query<{ slot: number }>(
      'SELECT "s" AS "slot" FROM generate_series(0, $2::int - 1) AS "s" WHERE pg_try_advisory_lock(hashtext($1), "s") LIMIT 1',
      [key, count],
    );
    const slot = rows[0]?.slot;
    if (slot === undefined) return null;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        // A lock of a connection since lost went with it.
        if (this.connection !== null && (await this.connection.catch(() => null)) === client) {
          await client.query('SELECT pg_advisory_unlock(hashtext($1), $2::int)', [key, slot]).catch(() => undefined);
        }
      },
    };
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    if (connection) await (await connection.catch(() => null))?.end().catch(() => undefined);
  }

  private client(): Promise<pg.Client> {
    if (this.connection) return this.connection;
    const client = new pg.Client({ connectionString: this.url });
    const connecting = client.connect().then(() => client);
    this.connection = connecting;
    const forget = () => {
      if (this.connection === connecting) this.connection = null;
    };
    // A lost connection took its locks with it; the next take opens another.
    client.on('error', forget);
    client.on('end', forget);
    connecting.catch(forget);
    return connecting;
  }
}
