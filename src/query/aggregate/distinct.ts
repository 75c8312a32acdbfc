/** `distinct=<key>` (with an optional `where`) → DistinctQuery. */
import { Errors } from '../../errors/index.ts';
import type { ClassSchema } from '../../schema/types.ts';
import { FALSE } from '../target.ts';
import { access, resolveTarget } from '../target.ts';
import { parseQuery } from '../parse.ts';
import type { DistinctQuery, OutputType } from './ast.ts';

export function parseDistinct(key: unknown, where: unknown, schema: ClassSchema | null, schemaOf: (className: string) => ClassSchema | null): DistinctQuery {
  if (typeof key !== 'string' || key === '') throw Errors.invalidQuery('distinct needs the name of a field.');
  const parsed = parseQuery(where, schema, schemaOf);
  const name = key === '_id' ? 'objectId' : key;
  const target = resolveTarget(name, schema);
  const { regex } = parsed;
  if (!target.known) return { kind: 'json', where: FALSE, path: [target.name], regex };
  const { field, as } = access(target);
  if (target.subPath.length > 0) return { kind: 'json', where: parsed.where, path: [target.name, ...target.subPath], regex };
  const type = field.kind === 'column' ? (field.column === 'objectId' ? 'String' : 'Date') : target.type!.type;
  switch (type) {
    case 'String':
    case 'Number':
    case 'Boolean':
    case 'Date':
    case 'Pointer': {
      if (as === 'json') throw Errors.invalidQuery(`distinct cannot read ${target.name}.`);
      const output: OutputType = type === 'Pointer' ? 'String' : type;
      const pointerClass = type === 'Pointer' ? (target.type?.targetClass ?? null) : null;
      return { kind: 'scalar', where: parsed.where, value: { field, as, type: output }, pointerClass, regex };
    }
    case 'Array':
      // Parse Server answers the elements of Array fields, on MongoDB and on PostgreSQL alike.
      return { kind: 'elements', where: parsed.where, path: [target.name], regex };
    case 'Object':
    case 'GeoPoint':
    case 'Polygon':
      return { kind: 'json', where: parsed.where, path: [target.name], regex };
    default:
      throw Errors.invalidQuery(`distinct does not read ${type} fields such as ${target.name}.`);
  }
}
