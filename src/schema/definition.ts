import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { assertClassName, assertFieldName, RESERVED_FIELDS } from './names.ts';
import { FIELD_TYPES, type ClassLevelPermissions, type FieldType, type FieldTypeName } from './types.ts';

/** `{type, targetClass?, required?, defaultValue?}` from the schema API, checked. */
export function parseFieldDefinition(name: string, definition: unknown): FieldType {
  if (RESERVED_FIELDS.has(name) || name === 'ACL') throw Errors.changedImmutableField(`Field ${name} is a default field and cannot be defined.`);
  assertFieldName(name);
  if (!isPlainObject(definition) || typeof definition.type !== 'string') throw Errors.invalidJson(`Field ${name} needs a definition like {"type": "String"}.`);
  const type = definition.type as FieldTypeName;
  if (!FIELD_TYPES.includes(type) || type === 'ACL') throw Errors.incorrectType(`Invalid field type ${JSON.stringify(definition.type)} for ${name}.`);
  const field: { type: FieldTypeName; targetClass?: string; required?: boolean; defaultValue?: unknown } = { type };
  if (type === 'Pointer' || type === 'Relation') {
    if (typeof definition.targetClass !== 'string') throw Errors.missingRequiredField(`Field ${name} of type ${type} needs a targetClass.`);
    assertClassName(definition.targetClass);
    field.targetClass = definition.targetClass;
  }
  if (definition.required !== undefined) {
    if (typeof definition.required !== 'boolean') throw Errors.incorrectType(`"required" of ${name} must be a boolean.`);
    field.required = definition.required;
  }
  if (definition.defaultValue !== undefined) field.defaultValue = definition.defaultValue;
  return field;
}

const OPERATIONS = ['get', 'find', 'count', 'create', 'update', 'delete', 'addField'] as const;
const PRINCIPAL = /^(\*|requiresAuthentication|role:[A-Za-z0-9_ -]+|pointerFields|[A-Za-z0-9_-]{1,64})$/;

/** Class-level permissions (decisions.md): checked for shape now, enforced with users and roles. */
export function parseClassLevelPermissions(value: unknown): ClassLevelPermissions {
  if (!isPlainObject(value)) throw Errors.invalidJson('classLevelPermissions must be an object.');
  const out: Record<string, unknown> = {};
  for (const [operation, rule] of Object.entries(value)) {
    if ((OPERATIONS as readonly string[]).includes(operation)) {
      if (!isPlainObject(rule)) throw Errors.invalidJson(`classLevelPermissions.${operation} must be an object.`);
      for (const [principal, allowed] of Object.entries(rule)) {
        if (principal === 'pointerFields') {
          if (!Array.isArray(allowed) || !allowed.every((f) => typeof f === 'string')) throw Errors.invalidJson(`classLevelPermissions.${operation}.pointerFields must be an array of field names.`);
          continue;
        }
        if (!PRINCIPAL.test(principal)) throw Errors.invalidJson(`classLevelPermissions.${operation}: ${JSON.stringify(principal.slice(0, 80))} is not "*", a user id, "role:<name>" or "requiresAuthentication".`);
        if (allowed !== true) throw Errors.invalidJson(`classLevelPermissions.${operation}.${principal} must be true.`);
      }
      out[operation] = rule;
    } else if (operation === 'readUserFields' || operation === 'writeUserFields') {
      if (!Array.isArray(rule) || !rule.every((field) => typeof field === 'string')) throw Errors.invalidJson(`classLevelPermissions.${operation} must be an array of field names.`);
      out[operation] = rule;
    } else if (operation === 'protectedFields') {
      if (!isPlainObject(rule) || !Object.values(rule).every((fields) => Array.isArray(fields) && fields.every((f) => typeof f === 'string'))) {
        throw Errors.invalidJson('classLevelPermissions.protectedFields maps principals to arrays of field names.');
      }
      out[operation] = rule;
    } else {
      throw Errors.invalidJson(`Unknown class-level permission ${JSON.stringify(operation.slice(0, 80))}.`);
    }
  }
  return out;
}

const INDEX_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/** One index of the schema API: `{field: 1 | -1, …}` with a name of letters, digits and "_". */
export function parseIndexKeys(name: string, keys: unknown): Record<string, 1 | -1> {
  if (!INDEX_NAME.test(name)) throw Errors.invalidQuery(`Invalid index name ${JSON.stringify(name.slice(0, 80))}.`);
  if (!isPlainObject(keys) || Object.keys(keys).length === 0) throw Errors.invalidQuery(`Index ${name} needs at least one field.`);
  const out: Record<string, 1 | -1> = {};
  for (const [field, direction] of Object.entries(keys)) {
    if (direction !== 1 && direction !== -1) throw Errors.invalidQuery(`Index ${name}: the direction of ${field} must be 1 or -1.`);
    out[field] = direction;
  }
  return out;
}
