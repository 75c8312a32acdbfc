/** The server's options of automatic indexes (src/config: --auto-index-*), as requests carry them (rest/auto-index.ts). */
export interface AutoIndexOptions {
  /** The server's switch (--auto-indexes); an app may still turn them off for itself. */
  readonly enabled: boolean;
  /** Scanning queries needing the same field of a class, within `windowMs`, that ask for the index. */
  readonly scans: number;
  readonly windowMs: number;
  /** Automatic indexes a class may have; past it, none is made and the scans stay listed. */
  readonly maxPerClass: number;
  /** An automatic index never read for this long is reported unused (PostgreSQL only). */
  readonly unusedAfterMs: number;
}
