export type { SqlCompiler as Dialect } from './compiler.ts';
