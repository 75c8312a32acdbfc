import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url));

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
  readonly cycle?: readonly { readonly name: string }[];
}

interface CruiseResult {
  readonly modules: readonly { readonly source: string }[];
  readonly summary: { readonly violations: readonly Violation[] };
}

/** Runs the same command as `npm run check:layers`, with the rules of .dependency-cruiser.cjs. */
function cruise(): CruiseResult {
  const run = spawnSync(process.execPath, [CLI, 'src', 'test/api', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.ok(run.stdout, `dependency-cruiser printed nothing (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as CruiseResult;
}

function describeViolation(violation: Violation): string {
  const path = violation.cycle?.length ? [violation.from, ...violation.cycle.map((step) => step.name)].join(' → ') : `${violation.from} → ${violation.to}`;
  return `${violation.rule.name}: ${path}`;
}

describe('layers (DESIGN.md "Layers", rules in .dependency-cruiser.cjs)', () => {
  it('has no import against the layers and no new import cycle', () => {
    const result = cruise();
    const sources = result.modules.map((module) => module.source);
    // A wrong path or an exclude that swallows everything would find no violation either.
    for (const expected of ['src/http/', 'src/rest/', 'src/query/', 'src/sql/sqlite/', 'test/api/']) {
      assert.ok(sources.some((source) => source.startsWith(expected)), `the check read no file under ${expected}`);
    }
    const violations = result.summary.violations.map(describeViolation);
    assert.deepEqual(violations, [], `imports against the layers:\n  ${violations.join('\n  ')}`);
  });
});
