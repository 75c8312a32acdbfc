import type { ScriptLogLine } from '../rest/script-log.ts';

/** How many lines of one app's cloud code are kept for GET /1/scriptlog. */
export const LINES_KEPT = 1000;

/** The recent log lines of one app's cloud code, oldest first; the oldest go when it is full. */
export class LogRing {
  private readonly lines: ScriptLogLine[] = [];
  private start = 0;

  constructor(private readonly capacity = LINES_KEPT) {}

  push(line: ScriptLogLine): void {
    if (this.lines.length < this.capacity) {
      this.lines.push(line);
      return;
    }
    this.lines[this.start] = line;
    this.start = (this.start + 1) % this.capacity;
  }

  /** Every kept line, oldest first. */
  all(): ScriptLogLine[] {
    return [...this.lines.slice(this.start), ...this.lines.slice(0, this.start)];
  }
}
