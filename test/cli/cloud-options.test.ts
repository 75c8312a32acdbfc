import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { run, tempDir } from '../helpers/process.ts';

/** Cloud code options name the operator's files: one that is not there stops the start (docs/cloud-code.md). */
describe('cloud code options', () => {
  it('refuses to start with a --cloud file or a --cloud-dir folder that does not exist (exit 1)', async () => {
    const dir = tempDir();
    try {
      const cases: [string[], RegExp][] = [
        [['--cloud', join(dir, 'missing.js')], /basalt: failed to start: --cloud: there is no file at .*missing\.js/],
        [['--cloud-dir', join(dir, 'missing')], /basalt: failed to start: --cloud-dir: there is no folder at .*missing/],
      ];
      for (const [args, message] of cases) {
        const started = run(args, { BASALT_DATA_DIR: join(dir, 'data'), BASALT_PORT: '0' });
        assert.equal(await started.exited(), 1, args.join(' '));
        assert.match(started.stderr(), message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
