import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OPTIONS, type OptionSpec } from './schema.ts';
import { ConfigError, loadConfig } from './load.ts';
import { configMarkdown, helpText } from './help.ts';

const DOCS = new URL('../../docs/config.md', import.meta.url);
const specs = Object.entries(OPTIONS) as [string, OptionSpec][];

function configError(run: () => unknown, mentions: string | RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    if (typeof mentions === 'string') assert.ok(error.message.includes(mentions), `"${error.message}" should mention ${mentions}`);
    else assert.match(error.message, mentions);
    return true;
  });
}

describe('config schema and generated docs', () => {
  it('refuses an integer below its option\'s minimum (a lease or sweep of 0 would spin)', () => {
    configError(() => loadConfig(['--queue-lease-time', '999'], {}), '--queue-lease-time must be at least 1000');
    configError(() => loadConfig([], { BASALT_QUEUE_SWEEP_INTERVAL: '0' }), 'at least 100');
    assert.equal(loadConfig(['--queue-lease-time', '1000'], {}).config.queueLeaseTime, 1000);
    assert.equal(loadConfig(['--queue-concurrency', '0'], {}).config.queueConcurrency, 0);
  });

  it('docs/config.md is what the schema generates (run `npm run docs` after changing an option)', () => {
    assert.equal(readFileSync(DOCS, 'utf8'), configMarkdown(), 'docs/config.md is out of date: run `npm run docs`');
  });

  it('documents every option in docs/config.md: flag, environment variable, type and default', () => {
    const markdown = configMarkdown();
    for (const [name, spec] of specs) {
      const row = markdown.split('\n').find((line) => line.startsWith(`| \`--${spec.flag}\` |`));
      assert.ok(row, `no row for ${name}`);
      assert.ok(row.includes(`\`${spec.env}\``), `row of ${name} lacks ${spec.env}`);
      assert.ok(row.includes(` ${spec.type} `), `row of ${name} lacks its type`);
      if ('default' in spec) assert.ok(row.includes(`\`${String(spec.default)}\``), `row of ${name} lacks its default`);
    }
  });

  it('gives every option a unique kebab-case flag and a unique BASALT_ environment variable', () => {
    const flags = specs.map(([, spec]) => spec.flag);
    const envs = specs.map(([, spec]) => spec.env);
    assert.equal(new Set(flags).size, flags.length);
    assert.equal(new Set(envs).size, envs.length);
    for (const [name, spec] of specs) {
      assert.match(spec.flag, /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, name);
      assert.match(spec.env, /^BASALT_[A-Z0-9_]+$/, name);
      assert.ok(spec.doc.trim().length > 0, `${name} has no doc line`);
    }
  });

  it('gives each default the type of its option', () => {
    for (const [name, spec] of specs) {
      if (!('default' in spec)) continue;
      const expected = spec.type === 'integer' ? 'number' : spec.type === 'boolean' ? 'boolean' : 'string';
      assert.equal(typeof spec.default, expected, name);
      if (spec.type === 'integer') assert.ok(Number.isInteger(spec.default) && (spec.default as number) >= 0, name);
    }
  });
});

describe('loadConfig', () => {
  it('fills every default when nothing is given', () => {
    const { config, help } = loadConfig([], {});
    assert.equal(help, false);
    for (const [name, spec] of specs) {
      const value = (config as Record<string, unknown>)[name];
      if ('default' in spec) assert.equal(value, spec.default, name);
      else assert.equal(value, undefined, name);
    }
    assert.equal(config.port, 1337);
    assert.equal(config.dataDir, './data');
    assert.ok(Object.isFrozen(config));
  });

  it('takes an environment variable over the default', () => {
    const { config } = loadConfig([], { BASALT_PORT: '4000', BASALT_DATA_DIR: '/srv/basalt' });
    assert.equal(config.port, 4000);
    assert.equal(config.dataDir, '/srv/basalt');
  });

  it('takes a flag over the environment variable', () => {
    const { config } = loadConfig(['--port', '5000', '--data-dir=/flag'], { BASALT_PORT: '4000', BASALT_DATA_DIR: '/env' });
    assert.equal(config.port, 5000);
    assert.equal(config.dataDir, '/flag');
  });

  it('reads both --flag value and --flag=value, and keeps "=" inside a value', () => {
    assert.equal(loadConfig(['--port', '8080'], {}).config.port, 8080);
    assert.equal(loadConfig(['--port=8081'], {}).config.port, 8081);
    const url = 'postgres://user:p=w@db.example:5432/basalt?sslmode=require';
    assert.equal(loadConfig([`--database=${url}`], {}).config.databaseUrl, url);
    assert.equal(loadConfig(['--database', url], {}).config.databaseUrl, url);
  });

  it('uses the last of a repeated flag', () => {
    assert.equal(loadConfig(['--port', '1', '--port=2'], {}).config.port, 2);
  });

  it('treats an empty environment variable as unset', () => {
    assert.equal(loadConfig([], { BASALT_PORT: '' }).config.port, 1337);
    assert.equal(loadConfig([], { BASALT_DATABASE_URL: '' }).config.databaseUrl, undefined);
  });

  it('reads the database URL, keys and admin account from the environment', () => {
    const { config } = loadConfig([], {
      BASALT_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/basalt',
      BASALT_APP_ID: 'my-app',
      BASALT_MASTER_KEY: 'm',
      BASALT_REST_KEY: 'r',
      BASALT_ADMIN_EMAIL: 'ops@example.com',
      BASALT_ADMIN_PASSWORD: 'pw',
    });
    assert.equal(config.databaseUrl, 'postgres://postgres@127.0.0.1:5432/basalt');
    assert.equal(config.appId, 'my-app');
    assert.equal(config.masterKey, 'm');
    assert.equal(config.restKey, 'r');
    assert.equal(config.adminEmail, 'ops@example.com');
    assert.equal(config.adminPassword, 'pw');
  });

  it('ignores environment variables that do not start with BASALT_', () => {
    assert.equal(loadConfig([], { PATH: '/usr/bin', PORT: '9', DATABASE_URL: 'x' }).config.port, 1337);
  });

  it('refuses an unknown flag', () => {
    configError(() => loadConfig(['--prot', '1'], {}), '--prot');
    configError(() => loadConfig(['--prot=1'], {}), '--prot');
  });

  it('refuses an unknown BASALT_ environment variable, even an empty one', () => {
    configError(() => loadConfig([], { BASALT_PROT: '1' }), 'BASALT_PROT');
    configError(() => loadConfig([], { BASALT_PROT: '' }), 'BASALT_PROT');
  });

  it('refuses a bare argument and a flag without its value', () => {
    configError(() => loadConfig(['serve'], {}), 'serve');
    configError(() => loadConfig(['--port'], {}), '--port');
  });

  it('refuses a malformed integer, naming the flag or variable it came from', () => {
    configError(() => loadConfig(['--port', 'abc'], {}), '--port');
    configError(() => loadConfig(['--port=12.5'], {}), '--port');
    configError(() => loadConfig(['--body-limit', '-1'], {}), '--body-limit');
    configError(() => loadConfig([], { BASALT_PORT: '80a' }), 'BASALT_PORT');
    configError(() => loadConfig([], { BASALT_OBJECT_SIZE_LIMIT: '1e6' }), 'BASALT_OBJECT_SIZE_LIMIT');
  });

  it('refuses a malformed URL, naming the flag or variable it came from', () => {
    configError(() => loadConfig(['--database', 'not a url'], {}), '--database');
    configError(() => loadConfig(['--public-url=example.com'], {}), '--public-url');
    configError(() => loadConfig([], { BASALT_DATABASE_URL: '127.0.0.1:5432' }), 'BASALT_DATABASE_URL');
  });

  it('does not parse an environment value that a flag overrides', () => {
    // The flag replaces the raw environment value before parsing, so a bad overridden value is harmless.
    assert.equal(loadConfig(['--port', '7'], { BASALT_PORT: 'bad' }).config.port, 7);
  });

  it('sets help for --help and -h, and still reads the other flags', () => {
    assert.equal(loadConfig(['--help'], {}).help, true);
    assert.equal(loadConfig(['-h'], {}).help, true);
    const both = loadConfig(['--port', '9', '--help'], {});
    assert.equal(both.help, true);
    assert.equal(both.config.port, 9);
  });
});

describe('helpText', () => {
  it('lists every flag with its environment variable and doc line, and --help', () => {
    const text = helpText();
    const lines = text.split('\n');
    for (const [name, spec] of specs) {
      const line = lines.find((candidate) => candidate.trimStart().startsWith(`--${spec.flag} <${spec.type}>`));
      assert.ok(line, `--help lacks --${spec.flag}`);
      assert.ok(line.includes(spec.env), `--help line of ${name} lacks ${spec.env}`);
      assert.ok(text.includes(spec.doc), `--help lacks the doc line of ${name}`);
      if ('default' in spec) assert.ok(text.includes(`(default: ${String(spec.default)})`), `--help lacks the default of ${name}`);
    }
    assert.ok(lines.some((line) => line.trimStart().startsWith('--help')));
    assert.ok(text.endsWith('\n'));
  });
});
