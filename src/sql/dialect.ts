import type { SqlCompiler } from './compiler.ts';
import type { AggregateDialect } from './aggregate-dialect.ts';
import type { InPlaceDialect } from './in-place.ts';

export type Dialect = SqlCompiler & AggregateDialect & InPlaceDialect;
