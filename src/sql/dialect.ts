import type { SqlCompiler } from './compiler.ts';
import type { AggregateDialect } from './aggregate-dialect.ts';

export type Dialect = SqlCompiler & AggregateDialect;
