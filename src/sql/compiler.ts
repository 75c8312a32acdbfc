/**
 * The one SQL compiler, split by concern under compiler/: base.ts (capabilities, parameters,
 * field reads), ddl.ts, geo-sql.ts, where.ts, pages.ts, select.ts (SqlCompiler, which dialects
 * extend).
 */
export { SqlCompiler } from './compiler/select.ts';
export { pageNumber, type CompiledSql } from './compiler/base.ts';
export { MAX_PAGE_ARMS, type ArmsPage } from './compiler/pages.ts';
