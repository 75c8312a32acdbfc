/**
 * Items gathered by key during one event-loop turn and handed over, one call per key, once the
 * turn's I/O has been read: what the requests of one moment ask of storage can then be answered
 * together (reads by id, creates of one class).
 */
export class TurnQueue<K, T> {
  private groups = new Map<K, T[]>();
  private scheduled = false;

  constructor(private readonly handle: (key: K, items: T[]) => void) {}

  add(key: K, item: T): void {
    let items = this.groups.get(key);
    if (!items) this.groups.set(key, (items = []));
    items.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    this.scheduled = false;
    const groups = this.groups;
    this.groups = new Map();
    for (const [key, items] of groups) this.handle(key, items);
  }
}
