import type { SqlCompiler } from './compiler.ts';
import type { AggregateDialect } from './aggregate-dialect.ts';
import type { InPlaceDialect } from './in-place-dialect.ts';

export type Dialect = SqlCompiler & AggregateDialect & InPlaceDialect;
