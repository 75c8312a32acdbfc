import { OPTIONS, type Config, type OptionName, type OptionSpec } from './schema.ts';

export class ConfigError extends Error {}

export interface LoadResult {
  readonly config: Config;
  readonly help: boolean;
}

const byFlag = new Map<string, OptionName>(Object.entries(OPTIONS).map(([name, spec]) => [spec.flag, name as OptionName]));

/**
 * Reads options from the command line (`--flag value` or `--flag=value`) over the environment over
 * the defaults. Unknown flags and malformed values stop the start with a message naming the option.
 * Environment variables that start with BASALT_ but are not options are refused too: a typo there
 * would otherwise be silently ignored.
 */
export function loadConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): LoadResult {
  const raw = new Map<OptionName, { value: string; source: string }>();
  for (const [name, spec] of entries()) {
    const value = env[spec.env];
    if (value !== undefined && value !== '') raw.set(name, { value, source: spec.env });
  }
  const knownEnv = new Set(entries().map(([, spec]) => spec.env));
  for (const key of Object.keys(env)) {
    if (key.startsWith('BASALT_') && !knownEnv.has(key)) throw new ConfigError(`Unknown environment variable ${key} (see --help).`);
  }

  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new ConfigError(`Unexpected argument "${arg}" (see --help).`);
    const eq = arg.indexOf('=');
    const flag = arg.slice(2, eq === -1 ? undefined : eq);
    const name = byFlag.get(flag);
    if (!name) throw new ConfigError(`Unknown option --${flag} (see --help).`);
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if ((OPTIONS[name] as OptionSpec).type === 'boolean' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--'))) value = 'true';
    else value = argv[++i];
    if (value === undefined) throw new ConfigError(`Option --${flag} needs a value.`);
    raw.set(name, { value, source: `--${flag}` });
  }

  const config: Record<string, unknown> = {};
  for (const [name, spec] of entries()) {
    const given = raw.get(name);
    if (given) config[name] = parseValue(spec, given.value, given.source);
    else if ('default' in spec) config[name] = spec.default;
  }
  return { config: Object.freeze(config) as Config, help };
}

function entries(): [OptionName, OptionSpec][] {
  return Object.entries(OPTIONS) as [OptionName, OptionSpec][];
}

function parseValue(spec: OptionSpec, value: string, source: string): string | number | boolean {
  switch (spec.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(value)) throw new ConfigError(`${source} must be an integer, got "${value}".`);
      const n = Number(value);
      if (n < 0) throw new ConfigError(`${source} must not be negative.`);
      if (spec.min !== undefined && n < spec.min) throw new ConfigError(`${source} must be at least ${spec.min}.`);
      return n;
    }
    case 'boolean':
      if (['true', '1', 'yes'].includes(value)) return true;
      if (['false', '0', 'no'].includes(value)) return false;
      throw new ConfigError(`${source} must be true or false, got "${value}".`);
    case 'url':
      try {
        new URL(value);
      } catch {
        throw new ConfigError(`${source} must be a URL, got "${value}".`);
      }
      return value;
    case 'string':
      return value;
  }
}
