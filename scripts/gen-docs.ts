/**
 * `npm run docs`: writes the documentation pages that are generated from code, so they cannot
 * drift from it. docs/errors.md comes from the error catalog, docs/config.md from the option
 * schema. src/errors/catalog.test.ts and src/config/config.test.ts compare the files on disk with
 * what the functions below produce, and fail until this script is run again.
 *
 *   npm run docs            rewrite the generated pages
 *   npm run docs -- --check exit 1 (and name the files) when a generated page is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definitions, type ErrorDefinition } from '../src/errors/catalog.ts';
import { configMarkdown } from '../src/config/help.ts';

export { configMarkdown };

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A table cell: pipes would end the cell, and `<…>` would be read as HTML. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** docs/errors.md, from src/errors/catalog.ts. */
export function errorsMarkdown(catalog: readonly ErrorDefinition[] = definitions()): string {
  const unusual = catalog.filter((entry) => entry.status !== 400).map((entry) => `${entry.code} → ${entry.status}`);
  const rows = catalog.map((entry) => `| ${entry.code} | \`${entry.name}\` | ${entry.status} | ${cell(entry.message)} |`);
  return [
    '# Errors',
    '',
    'Generated from `src/errors/catalog.ts` by `npm run docs`; a test fails when this file and the catalog drift.',
    '',
    'Every failed request answers with an HTTP error status and a JSON body of exactly two fields:',
    '',
    '```json',
    '{"code": 101, "error": "Object not found: GameScore \\"xWMyZ4YEGZ\\"."}',
    '```',
    '',
    '`code` is a stable number from the table below. The numbers are the ones the Parse SDKs already',
    'know, so an SDK maps them to its own error constants. `error` is a message for people: it is the',
    'default message below unless the server can say something more precise (which field, which',
    'class, which limit). Nothing else reaches the client: no stack traces, no database text.',
    '',
    'How a code maps to an HTTP status follows the rules in the project decisions (spec/decisions.md,',
    '"Errors and HTTP statuses"):',
    '',
    '- 404 when the object addressed does not exist or the caller may not read it (101);',
    '- 401 when the application id is missing (902) or no valid key for it was sent (903);',
    '- 403 when a valid key lacks the privilege, for example a schema call without the master key (119);',
    '- 429 when a rate or concurrency limit is exceeded (155);',
    '- 413 when a body or object is too large (116; 129 for files);',
    '- 500 for an unexpected fault (1); the message carries the request id, which is also in the',
    '  `X-Request-Id` header of every response and in the server log;',
    '- 400 for every other code.',
    '',
    `Codes in this catalog answered with a status other than 400: ${unusual.join(', ')}.`,
    '',
    'Three places use these codes differently:',
    '',
    '- A request to a path with no endpoint answers 404 with code 108 (`COMMAND_UNAVAILABLE`).',
    '- Inside `POST /1/batch`, a failed command does not fail the batch: its entry in the 200 response',
    '  is `{"error": {"code": …, "error": "…"}}`.',
    '- Cloud code that throws a `Parse.Error` answers with that error\'s code, which may be one of the',
    '  app\'s own, outside this table (answered with 400); see docs/cloud-code.md.',
    '',
    'Webhooks ([webhooks.md](webhooks.md)) use two codes: 143 for every refusal of the hook resources',
    '(`/1/hooks/…`: an invalid URL, an unknown trigger name, a duplicate, a missing hook, the `_Session`',
    'class), and 141 for a call that failed (a function hook, or a beforeSave/beforeDelete hook that',
    'refused the write, timed out or could not be reached), with the receiver\'s message or one that says why.',
    'Push (`POST /1/push`) answers 112 for a bad channel name, 115 for a missing payload or audience and',
    'for a bad expiry, 152 for a bad `push_time`, and 142 for canceling a push that has started: which',
    'condition gives which code is listed in [push.md](push.md#refusals).',
    '',
    '| Code | Name | HTTP status | Default message |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** Every generated page: path relative to the repository root → its content. */
export function generatedDocs(): Map<string, string> {
  return new Map([
    ['docs/errors.md', errorsMarkdown()],
    ['docs/config.md', configMarkdown()],
  ]);
}

function main(argv: readonly string[]): number {
  const check = argv.includes('--check');
  const stale: string[] = [];
  for (const [path, content] of generatedDocs()) {
    const file = resolve(ROOT, path);
    let current: string | null = null;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = null;
    }
    if (current === content) continue;
    if (check) stale.push(path);
    else {
      writeFileSync(file, content);
      process.stdout.write(`wrote ${path}\n`);
    }
  }
  if (stale.length) {
    process.stderr.write(`out of date (run npm run docs): ${stale.join(', ')}\n`);
    return 1;
  }
  return 0;
}

// Writes only when run as a script; tests import the functions above without side effects.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
