import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { CATALOG, definitions, type ErrorKey } from './catalog.ts';
import { ApiError, Errors, isApiError } from './index.ts';
import { Edge } from '../http/edge/edge.ts';
import { HttpServer } from '../http/edge/server.ts';
import { errorsMarkdown } from '../../scripts/gen-docs.ts';

const DOCS = new URL('../../docs/errors.md', import.meta.url);

/**
 * The codes spec/decisions.md names ("Errors and HTTP statuses" and "Common codes") with the
 * status it gives each. Every code not in the status table answers 400.
 */
const DECIDED_STATUS: ReadonlyMap<number, number> = new Map([
  [1, 500],
  [101, 404],
  [116, 413],
  [119, 403],
  [129, 413],
  [155, 429],
  [902, 401],
  [903, 401],
  ...[
    102, 103, 104, 105, 106, 107, 111, 112, 115, 117, 118, 122, 123, 125, 137, 139, 141, 142, 143, 152, 160, 200, 201, 202, 203, 205, 206,
    208, 209, 250, 251, 252, 255,
  ].map((code): [number, number] => [code, 400]),
]);

const keys = Object.keys(CATALOG) as ErrorKey[];

describe('error catalog', () => {
  it('docs/errors.md is what the catalog generates (run `npm run docs` after changing the catalog)', () => {
    const onDisk = readFileSync(DOCS, 'utf8');
    assert.equal(onDisk, errorsMarkdown(), 'docs/errors.md is out of date: run `npm run docs`');
  });

  it('lists every catalog entry in docs/errors.md, with its status', () => {
    const onDisk = readFileSync(DOCS, 'utf8');
    for (const entry of definitions()) {
      assert.ok(onDisk.includes(`| ${entry.code} | \`${entry.name}\` | ${entry.status} |`), `docs/errors.md lacks code ${entry.code}`);
    }
  });

  it('gives every code and every name to exactly one entry', () => {
    const codes = definitions().map((entry) => entry.code);
    const names = definitions().map((entry) => entry.name);
    assert.equal(new Set(codes).size, codes.length, `duplicate codes: ${codes.filter((code, i) => codes.indexOf(code) !== i).join(', ')}`);
    assert.equal(new Set(names).size, names.length, `duplicate names: ${names.filter((name, i) => names.indexOf(name) !== i).join(', ')}`);
  });

  it('holds well-formed entries: positive integer codes, CONSTANT_CASE names, 4xx/5xx statuses, a message', () => {
    for (const entry of definitions()) {
      assert.ok(Number.isInteger(entry.code) && entry.code > 0, `code ${entry.code}`);
      assert.match(entry.name, /^[A-Z][A-Z0-9_]*$/, `name of ${entry.code}`);
      assert.ok(entry.status >= 400 && entry.status <= 599, `status of ${entry.code} is ${entry.status}`);
      assert.ok(entry.message.trim().length > 0, `message of ${entry.code}`);
      assert.ok(Object.isFrozen(entry), `entry ${entry.code} is frozen`);
    }
  });

  it('sorts definitions() by code', () => {
    const codes = definitions().map((entry) => entry.code);
    assert.deepEqual(codes, [...codes].sort((a, b) => a - b));
  });

  it('holds every code of spec/decisions.md with the status it gives', () => {
    const byCode = new Map(definitions().map((entry) => [entry.code, entry]));
    for (const [code, status] of DECIDED_STATUS) {
      const entry = byCode.get(code);
      assert.ok(entry, `code ${code} is missing from the catalog`);
      assert.equal(entry.status, status, `code ${code} (${entry.name}) should answer ${status}`);
    }
  });
});

describe('Errors factories', () => {
  it('has one factory per catalog key', () => {
    assert.deepEqual(Object.keys(Errors).sort(), [...keys].sort());
  });

  for (const key of keys) {
    it(`Errors.${key}() renders {code, error} with the catalog's status`, () => {
      const definition = CATALOG[key];
      const error = Errors[key]();
      assert.ok(error instanceof ApiError);
      assert.ok(isApiError(error));
      assert.equal(error.code, definition.code);
      assert.equal(error.status, definition.status);
      assert.equal(error.name, definition.name);
      assert.deepEqual(error.toJSON(), { code: definition.code, error: definition.message });
      assert.deepEqual(JSON.parse(JSON.stringify(error)), { code: definition.code, error: definition.message });

      const specific = Errors[key]('A more precise message.');
      assert.deepEqual(specific.toJSON(), { code: definition.code, error: 'A more precise message.' });
      assert.equal(specific.status, definition.status);
    });
  }

  it('does not take a plain Error for an ApiError', () => {
    assert.equal(isApiError(new Error('x')), false);
    assert.equal(isApiError({ code: 101, error: 'x' }), false);
  });
});

describe('error rendering at the HTTP edge', () => {
  async function edge() {
    const routes = [
      {
        method: 'GET' as const,
        path: '/throw/:key',
        handler: (request: { params: Record<string, string> }) => {
          throw Errors[request.params.key as ErrorKey]();
        },
      },
      {
        method: 'GET' as const,
        path: '/fault',
        handler: () => {
          throw new Error('secret database detail');
        },
      },
    ];
    const server = new HttpServer(new Edge(routes, { bodyLimit: 1024, trustProxy: false }, pino({ level: 'silent' })));
    const url = await server.listen(0, '127.0.0.1');
    const get = async (path: string) => {
      const response = await fetch(`${url}${path}`);
      return { status: response.status, body: (await response.json()) as { code: number; error: string } };
    };
    return { get, close: () => server.close() };
  }

  it('answers every catalog error with its status and exactly {code, error}', async () => {
    const app = await edge();
    try {
      for (const key of keys) {
        const response = await app.get(`/throw/${key}`);
        assert.equal(response.status, CATALOG[key].status, key);
        assert.deepEqual(response.body, { code: CATALOG[key].code, error: CATALOG[key].message }, key);
      }
    } finally {
      await app.close();
    }
  });

  it('answers an unexpected fault with 500 and code 1, without its text', async () => {
    const app = await edge();
    try {
      const response = await app.get('/fault');
      assert.equal(response.status, 500);
      assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
      assert.equal(response.body.code, 1);
      assert.ok(!response.body.error.includes('secret'), response.body.error);
    } finally {
      await app.close();
    }
  });

  it('answers a path without an endpoint with 404 and code 108', async () => {
    const app = await edge();
    try {
      const response = await app.get('/1/nowhere?x=1');
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, { code: 108, error: 'No endpoint at GET /1/nowhere.' });
    } finally {
      await app.close();
    }
  });
});
