/**
 * The layer check, run by `src/layers.test.ts` (so by `npm test`): the import rules of DESIGN.md
 * "Layers" and docs/architecture.md "Layers", over src/ (unit tests aside) and test/api/.
 *
 * Type-only imports count like any other: a type that points the wrong way ties two layers together
 * as much as a value does, and a later change easily turns it into a value import.
 *
 * KNOWN_* lists the violations the code has today, each with its reason, so that the check fails on
 * a new one. An entry leaves its list when the code is fixed; none is added without a reason.
 */

// Files in an import cycle today (module level). Each is a type-only cycle.
const KNOWN_FILE_CYCLES = [
  // An app handle carries its write target and hooks (apps/registry.ts), and the write pipeline's
  // context names the app handle (rest/context.ts): the registry and the rest layer share types.
  '^src/(apps/registry|rest/write/pipeline|rest/context)\\.ts$',
];

// Folders that are in an import cycle with one another today (folder level), in two groups:
// - apps, mail, queue, rest: the app handle (apps/registry.ts) names the write pipeline's hooks
//   and target (rest/write/, type-only), while rest, mail and queue use apps (records, settings);
// - encoding, query, schema: schema/ holds both the low definitions that query/ and encoding/ read
//   (types.ts, names.ts, indexes.ts) and code above them (builtin.ts uses query/fields.ts,
//   definition.ts decodes values with encoding/values.ts).
// docs/architecture.md "Layers" lists the imports. Every folder not listed (sql, storage, auth,
// http, errors, config, files, and any new one) must stay out of any cycle.
const KNOWN_FOLDER_TANGLE = '^src/(apps|encoding|mail|query|queue|rest|schema)(/|$)';

const EDGE = '^src/(http/|server\\.ts$|main\\.ts$)';
const DRIVER_DIRS = '^src/sql/(sqlite|postgres)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'No import cycle between folders of src/ (DESIGN.md: dependencies point down only).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/', pathNot: KNOWN_FOLDER_TANGLE },
      to: { circular: true },
    },
    {
      name: 'no-file-cycle',
      comment: 'No import cycle between files of src/.',
      severity: 'error',
      from: { path: '^src/', pathNot: KNOWN_FILE_CYCLES },
      to: { circular: true },
    },
    {
      name: 'router-only-at-the-edge',
      comment: 'Only src/http/, src/server.ts and src/main.ts import the HTTP router (or any HTTP framework).',
      severity: 'error',
      from: { path: '^src/', pathNot: EDGE },
      to: { path: 'node_modules/(find-my-way|fastify|@fastify/[^/]+)/' },
    },
    {
      name: 'drivers-only-in-driver-dirs',
      comment: 'Only the folder of each database (src/sql/<database>/) imports its driver.',
      severity: 'error',
      from: { path: '^src/', pathNot: DRIVER_DIRS },
      to: { path: 'node_modules/(better-sqlite3|pg|pg-[^/]+|@types/(better-sqlite3|pg))/' },
    },
    {
      name: 'query-knows-no-sql',
      comment: 'src/query/ builds the query AST: it imports nothing from src/sql, src/storage, src/rest or src/http.',
      severity: 'error',
      from: { path: '^src/query/' },
      to: { path: '^src/(sql|storage|rest|http)/' },
    },
    {
      name: 'rest-knows-no-http',
      comment: 'src/rest/ is framework-free: it imports nothing from src/http/.',
      severity: 'error',
      from: { path: '^src/rest/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'api-tests-black-box',
      comment: 'test/api/ tests speak HTTP only: they import nothing from src/.',
      severity: 'error',
      from: { path: '^test/api/' },
      to: { path: '^src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Unit tests beside the code wire pieces of several layers together on purpose (a catalog
    // test renders through src/http/errors.ts); they are not part of the layered program.
    exclude: { path: ['^(dist|dashboard|bench)/', '^src/.*\\.test\\.ts$'] },
  },
};
