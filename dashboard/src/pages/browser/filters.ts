import type { FieldType, Where } from '../../api/types.ts';

/** A filter a person builds: one field, one operator of the query language, a value as typed. */
export type FilterOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'contains' | 'startsWith' | 'exists' | 'notExists' | 'in' | 'between' | 'pointsTo' | 'holds' | 'memberOf';

export interface Filter {
  readonly field: string;
  readonly op: FilterOp;
  /**
   * As typed; for `between`, two values separated by `..` (a date range: from..to). For
   * `pointsTo` and `holds`, an objectId of the column's target class. For `memberOf` (field
   * `$relatedTo`), `<owner class>.<owner objectId>.<relation field>`.
   */
  readonly value: string;
}

export const OP_LABELS: Readonly<Record<FilterOp, string>> = {
  eq: 'equals',
  ne: 'is not',
  lt: 'less than',
  lte: 'at most',
  gt: 'greater than',
  gte: 'at least',
  contains: 'contains',
  startsWith: 'starts with',
  exists: 'is set',
  notExists: 'is not set',
  in: 'is one of',
  between: 'between',
  pointsTo: 'points to',
  holds: 'contains',
  memberOf: 'members of',
};

/** The pseudo-field of a `memberOf` filter: it is not a column but the query's `$relatedTo`. */
export const RELATED_TO = '$relatedTo';

/** What the API takes as an objectId here: letters, digits, `_` and `-` (docs/api.md "ACL"). */
export const OBJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;

function objectIdOf(text: string): string {
  const id = text.trim();
  if (!OBJECT_ID.test(id)) throw new Error(`"${text}" is not an objectId (letters, digits, _ and -).`);
  return id;
}

/** A `memberOf` value: the object holding the relation and the relation's field. */
export function relatedToParts(value: string): { className: string; objectId: string; key: string } {
  const [className = '', objectId = '', key = '', ...rest] = value.split('.');
  if (rest.length || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(className) || !OBJECT_ID.test(objectId) || !/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) {
    throw new Error(`"${value}" is not <class>.<objectId>.<relation field>.`);
  }
  return { className, objectId, key };
}

/** Which operators make sense for a column of this type. */
export function opsFor(type: FieldType | 'id' | 'timestamp'): FilterOp[] {
  const presence: FilterOp[] = ['exists', 'notExists'];
  switch (type) {
    case 'id':
      return ['eq', 'ne', 'in', 'startsWith'];
    case 'String':
      return ['eq', 'ne', 'contains', 'startsWith', 'in', 'lt', 'gt', ...presence];
    case 'Number':
      return ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'between', ...presence];
    case 'Boolean':
      return ['eq', 'ne', ...presence];
    case 'Date':
    case 'timestamp':
      return ['between', 'lt', 'gt', 'eq', ...presence];
    case 'Pointer':
      return ['pointsTo', ...presence];
    case 'Relation':
      return ['holds'];
    default:
      return presence;
  }
}

/** A value as typed → its wire form for a column of this type; throws a sentence when it cannot be. */
export function wireValue(type: FieldType | 'id' | 'timestamp', text: string): unknown {
  switch (type) {
    case 'Number': {
      const number = Number(text);
      if (text.trim() === '' || !Number.isFinite(number)) throw new Error(`"${text}" is not a number.`);
      return number;
    }
    case 'Boolean':
      if (text !== 'true' && text !== 'false') throw new Error('Write true or false.');
      return text === 'true';
    case 'Date':
    case 'timestamp': {
      const date = new Date(text);
      if (Number.isNaN(date.getTime())) throw new Error(`"${text}" is not a date (2024-01-31 or 2024-01-31T12:00:00Z).`);
      return { __type: 'Date', iso: date.toISOString() };
    }
    default:
      return text;
  }
}

/** Characters that mean something in a regular expression, written as themselves. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The where of one filter; `targetClass` is the Pointer's or Relation's. Throws a sentence when it does not fit. */
export function filterClause(filter: Filter, type: FieldType | 'id' | 'timestamp', targetClass?: string): Where {
  const value = () => wireValue(type, filter.value);
  const on = (condition: unknown): Where => ({ [filter.field]: condition });
  switch (filter.op) {
    case 'eq':
      return on(value());
    case 'ne':
      return on({ $ne: value() });
    case 'lt':
      return on({ $lt: value() });
    case 'lte':
      return on({ $lte: value() });
    case 'gt':
      return on({ $gt: value() });
    case 'gte':
      return on({ $gte: value() });
    case 'contains':
      return on({ $regex: literal(filter.value) });
    case 'startsWith':
      return on({ $regex: `^${literal(filter.value)}` });
    case 'exists':
      return on({ $exists: true });
    case 'notExists':
      return on({ $exists: false });
    case 'in':
      return on({ $in: filter.value.split(',').map((part) => wireValue(type, part.trim())) });
    case 'between': {
      const [from = '', to = ''] = filter.value.split('..').map((part) => part.trim());
      return on({ ...(from ? { $gte: wireValue(type, from) } : {}), ...(to ? { $lte: wireValue(type, to) } : {}) });
    }
    case 'pointsTo':
    case 'holds':
      // A Relation "contains" an object when it holds a pointer to it: the same equality as a Pointer's.
      if ((type !== 'Pointer' && type !== 'Relation') || !targetClass) throw new Error(`${filter.field} is not a Pointer or a Relation.`);
      if (filter.op === 'holds' ? type !== 'Relation' : type !== 'Pointer') throw new Error(`"${OP_LABELS[filter.op]}" does not apply to a ${type}.`);
      return on({ __type: 'Pointer', className: targetClass, objectId: objectIdOf(filter.value) });
    case 'memberOf': {
      if (filter.field !== RELATED_TO) throw new Error('"members of" is a filter of its own, not of a column.');
      const owner = relatedToParts(filter.value);
      return { $relatedTo: { object: { __type: 'Pointer', className: owner.className, objectId: owner.objectId }, key: owner.key } };
    }
  }
}

export function filtersWhere(filters: readonly Filter[], typeOf: (field: string) => FieldType | 'id' | 'timestamp', targetOf: (field: string) => string | undefined = () => undefined): Where {
  const clauses = filters.map((filter) => filterClause(filter, typeOf(filter.field), targetOf(filter.field)));
  if (clauses.length === 0) return {};
  if (clauses.length === 1) return clauses[0]!;
  return { $and: clauses };
}
