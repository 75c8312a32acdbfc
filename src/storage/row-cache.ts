import type { Row } from './driver.ts';

/** Rows kept over all the caches of the process (every app's); past either bound all start again empty. */
const MAX_ROWS = 50_000;
/** Characters of document text kept, over all caches. */
const MAX_TEXT = 32 * 1024 * 1024;

const caches = new Set<RowCache>();
let rowsKept = 0;
let textKept = 0;

/**
 * Rows read by id, kept for the reads by id that follow while the database has not changed: the
 * driver's read epoch (SqlDriver.readEpoch) moves whenever it may have, and every row kept under
 * another epoch is dropped at once. Rows hold strings and numbers only (documents as JSON text),
 * which nobody changes, so a kept row is handed out as it is. One cache per app's store, which
 * lives as long as the process; the bounds are the process's, so that many apps cannot hold many
 * times the memory.
 */
export class RowCache {
  private epoch = -1;
  private rows = new Map<string, Map<string, Row>>();
  private count = 0;
  private text = 0;

  constructor() {
    caches.add(this);
  }

  get(className: string, objectId: string, epoch: number): Row | undefined {
    if (epoch !== this.epoch) {
      this.reset(epoch);
      return undefined;
    }
    return this.rows.get(className)?.get(objectId);
  }

  set(className: string, objectId: string, row: Row, epoch: number): void {
    if (epoch !== this.epoch) this.reset(epoch);
    if (rowsKept >= MAX_ROWS || textKept >= MAX_TEXT) for (const cache of caches) cache.reset(cache.epoch);
    let ofClass = this.rows.get(className);
    if (!ofClass) this.rows.set(className, (ofClass = new Map()));
    const previous = ofClass.get(objectId);
    if (previous) this.forget(previous);
    ofClass.set(objectId, row);
    const text = textOf(row);
    this.count++;
    this.text += text;
    rowsKept++;
    textKept += text;
  }

  private forget(row: Row): void {
    const text = textOf(row);
    this.count--;
    this.text -= text;
    rowsKept--;
    textKept -= text;
  }

  private reset(epoch: number): void {
    this.epoch = epoch;
    if (this.count === 0) return;
    rowsKept -= this.count;
    textKept -= this.text;
    this.rows = new Map();
    this.count = 0;
    this.text = 0;
  }
}

function textOf(row: Row): number {
  return typeof row.data === 'string' ? row.data.length : 0;
}
