/** Turns measurements into the markdown that is printed and kept in bench/results/latest.md. */

export interface Row {
  readonly server: string;
  readonly workload: string;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** Connection errors and timeouts: requests that got no HTTP answer at all. */
  readonly errors: number;
  /** Failed commands inside 200 batch answers; undefined where it cannot happen. */
  readonly itemErrors?: number;
  /** Server (and PostgreSQL backend) CPU per response: unlike req/s, barely moved by other load on the machine. */
  readonly cpuUsPerRequest: number;
  /** Share of one core the server process used while measured; near 100% means the server is the bottleneck. */
  readonly serverCpuPct: number;
  readonly clientCpuPct: number;
  /** PostgreSQL backends' share of one core; undefined for in-process storage. */
  readonly dbCpuPct?: number;
  /** Everything else on the machine, in the same unit: noise the row was measured under. */
  readonly otherCpuPct: number;
  readonly rssAfterMb: number;
}

export interface ServerInfo {
  readonly server: string;
  readonly idleRssMb: number;
}

export interface Target {
  readonly label: string;
  readonly measured: number | undefined;
  /** The same comparison by CPU spent per request, for runs on a machine that was not idle. */
  readonly byCpu?: number | undefined;
  readonly goal: number;
  /** Throughput ratios must reach the goal; latency ratios, latency and memory must stay under it. */
  readonly kind: 'ratio-at-least' | 'ratio-at-most' | 'ms-at-most' | 'mb-at-most';
}

/** A suite measured apart from the ceiling comparison (queries, users), with goals of its own. */
export interface Section {
  readonly title: string;
  readonly intro: string[];
  readonly rows: readonly Row[];
  /** Median latency of each row's request sent one at a time: its own cost, without queueing. */
  readonly aloneMs: ReadonlyMap<Row, number>;
  readonly targets: readonly Target[];
}

export interface Report {
  readonly header: string[];
  readonly rows: readonly Row[];
  readonly servers: readonly ServerInfo[];
  readonly targets: readonly Target[];
  readonly sections: readonly Section[];
  readonly notes: string[];
}

const fixed = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Tenths of a millisecond where they matter: a query at 2 or 3 ms is half again as slow. */
const latency = (ms: number) => (Number.isNaN(ms) ? '–' : fixed(ms, ms < 10 ? 1 : 0));

function table(head: string[], align: ('l' | 'r')[], body: string[][]): string {
  const rule = align.map((a) => (a === 'r' ? '---:' : '---'));
  return [head, rule, ...body].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function targetMet(target: Target): boolean | undefined {
  if (target.measured === undefined) return undefined;
  return target.kind === 'ratio-at-least' ? target.measured >= target.goal : target.measured <= target.goal;
}

const UNIT: Record<Target['kind'], string> = { 'ratio-at-least': '×', 'ratio-at-most': '×', 'ms-at-most': ' ms', 'mb-at-most': ' MB' };

function targetsTable(targets: readonly Target[]): string {
  return table(
    ['target', 'measured', 'goal', 'result', 'by CPU cost'],
    ['l', 'r', 'r', 'l', 'r'],
    targets.map((t) => {
      const met = targetMet(t);
      const unit = UNIT[t.kind];
      const ratio = t.kind.startsWith('ratio');
      const measured = t.measured === undefined || Number.isNaN(t.measured) ? 'n/a' : `${fixed(t.measured, ratio ? 2 : 1)}${unit}`;
      const goal = `${t.kind === 'ratio-at-least' ? '≥' : '≤'} ${fixed(t.goal, ratio ? 2 : 0)}${unit}`;
      const byCpu = t.byCpu === undefined ? '–' : `${fixed(t.byCpu, 2)}×`;
      return [t.label, measured, goal, met === undefined ? 'not run' : met ? 'met' : '**missed**', byCpu];
    }),
  );
}

function resultsTable(rows: readonly Row[], aloneMs?: ReadonlyMap<Row, number>): string {
  const alone = aloneMs ? ['alone ms'] : [];
  return table(
    ['server', 'workload', 'req/s', 'p50 ms', 'p99 ms', ...alone, 'non-2xx', 'errors', 'CPU µs/req', 'server CPU', 'DB CPU', 'client CPU', 'other CPU', 'RSS after MB'],
    ['l', 'l', 'r', 'r', 'r', ...alone.map(() => 'r' as const), 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    rows.map((row) => [
      row.server,
      row.workload,
      fixed(row.reqPerSec),
      latency(row.p50Ms),
      latency(row.p99Ms),
      ...(aloneMs ? [latency(aloneMs.get(row) ?? Number.NaN)] : []),
      row.itemErrors ? `${row.non2xx} (+${row.itemErrors} in batches)` : String(row.non2xx),
      String(row.errors),
      fixed(row.cpuUsPerRequest),
      `${fixed(row.serverCpuPct)}%`,
      row.dbCpuPct === undefined ? '–' : `${fixed(row.dbCpuPct)}%`,
      `${fixed(row.clientCpuPct)}%`,
      `${fixed(row.otherCpuPct)}%`,
      fixed(row.rssAfterMb, 1),
    ]),
  );
}

export function renderMarkdown(report: Report): string {
  const idle = table(
    ['server', 'idle RSS MB'],
    ['l', 'r'],
    report.servers.map((s) => [s.server, fixed(s.idleRssMb, 1)]),
  );
  // A run of the query or user suites alone has no ceiling and no http rows to show.
  const http = report.rows.length
    ? [
        '## Results',
        '',
        resultsTable(report.rows),
        '',
        idle,
        '',
        '## Against the ceiling',
        '',
        'Ratios are Basalt req/s divided by the bare `node:http` server\'s req/s on the same machine; the result is judged on ' +
          'them. "by CPU cost" divides the ceiling\'s CPU µs per request by Basalt\'s (server plus PostgreSQL backends): it ' +
          'shows the same gap with less noise when the machine was not idle.',
        '',
        targetsTable(report.targets),
        '',
      ]
    : [];
  const sections = report.sections.flatMap((section) => [
    `## ${section.title}`,
    '',
    ...section.intro,
    '',
    resultsTable(section.rows, section.aloneMs),
    '',
    targetsTable(section.targets),
    '',
  ]);
  return [
    '# Basalt load benchmark',
    '',
    ...report.header,
    '',
    ...http,
    ...sections,
    ...(report.notes.length ? ['## Notes', '', ...report.notes.map((n) => `- ${n}`), ''] : []),
  ].join('\n');
}
