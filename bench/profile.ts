/**
 * Summarizes a .cpuprofile written by `BENCH_CPU_PROF=dir npm run bench`:
 *
 *   node --import tsx bench/profile.ts <file.cpuprofile> [top] [last-seconds]
 *
 * With last-seconds, only the end of the profile counts: a profile covers the server's whole
 * life, and the measured workload is what ran just before it was stopped.
 * Prints where time goes by area (a package, a src/ folder, Node internals, GC) and the functions
 * with the most self and total time. DevTools shows the same data; this is for a terminal and for
 * comparing runs in text.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Groups frames so a reader sees "find-my-way" or "src/storage" instead of thousands of functions. */
function areaOf(url: string, name: string): string {
  if (name === '(garbage collector)') return '(gc)';
  if (name === '(idle)' || name === '(program)' || name === '(root)') return name;
  if (!url) return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const src = /\/(src|bench|dist)\/([^/]+)\//.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  if (/\/(src|bench|dist)\/[^/]+$/.test(url)) return url.slice(url.lastIndexOf('/', url.lastIndexOf('/') - 1) + 1);
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return url.slice(-40);
}

function main(): void {
  const [file, topArg, lastArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: bench/profile.ts <file.cpuprofile> [top] [last-seconds]');
  const top = Number(topArg ?? 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const from = lastArg ? profile.endTime - Number(lastArg) * 1e6 : -Infinity;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= from) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });

  const key = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src|bench|dist)\//, (_m, dir: string) => (dir === 'dist' ? 'src/' : `${dir}/`))}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const areas = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const area = areaOf(node.callFrame.url, node.callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    if (area !== '(idle)') busy += us;
    self.set(key(node), (self.get(key(node)) ?? 0) + us);
    // Total time counts each function once per sample even when it recurses.
    const seen = new Set<string>();
    for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
      const k = key(byId.get(up)!);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  const print = (title: string, map: Map<string, number>, filter: (k: string) => boolean = () => true) => {
    process.stdout.write(`\n${title} (share of non-idle time, ${(busy / 1e6).toFixed(1)} s)\n`);
    [...map]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([k, us]) => process.stdout.write(`${pct(us)}  ${k}\n`));
  };
  print('by area', areas, (k) => k !== '(idle)');
  print('self time', self, (k) => !k.startsWith('(idle)'));
  print('total time, src/ only', total, (k) => / src\//.test(k));
}

main();
