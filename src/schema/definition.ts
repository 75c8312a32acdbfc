import { Errors } from '../errors/index.ts';
import { decodeValue, isPlainObject } from '../encoding/values.ts';
import { assertClassName, assertFieldName, isValidFieldName, RESERVED_FIELDS } from './names.ts';
import { DEFAULT_FIELDS, FIELD_TYPES, describeType, sameType, type ClassLevelPermissions, type FieldType, type FieldTypeName } from './types.ts';

type Fields = Readonly<Record<string, FieldType>>;

/**
 * The field of that name, if the class has it. Own properties only: "toString" or "constructor"
 * are ordinary field names, not the methods every object inherits.
 */
export function fieldOf(fields: Fields, name: string): FieldType | undefined {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

export function isDefaultField(name: string): boolean {
  return RESERVED_FIELDS.has(name) || Object.hasOwn(DEFAULT_FIELDS, name);
}

/** Every class has the default fields (objectId, createdAt, updatedAt, ACL); the schema API can neither define nor delete them. */
export function assertNotDefaultField(name: string): void {
  if (isDefaultField(name)) throw Errors.changedImmutableField(`Field ${name} is a default field and cannot be changed.`);
}

/** `{type, targetClass?, required?, defaultValue?}` from the schema API, checked. */
export function parseFieldDefinition(name: string, definition: unknown): FieldType {
  assertNotDefaultField(name);
  assertFieldName(name);
  if (!isPlainObject(definition) || typeof definition.type !== 'string') throw Errors.invalidJson(`Field ${name} needs a definition like {"type": "String"}.`);
  const type = definition.type as FieldTypeName;
  if (!FIELD_TYPES.includes(type) || type === 'ACL') throw Errors.incorrectType(`Invalid field type ${JSON.stringify(definition.type.slice(0, 40))} for ${name}.`);
  const field: { type: FieldTypeName; targetClass?: string; required?: boolean; defaultValue?: unknown } = { type };
  if (type === 'Pointer' || type === 'Relation') {
    if (definition.targetClass === undefined || definition.targetClass === null) throw Errors.missingRequiredField(`Field ${name} of type ${type} needs a targetClass.`);
    if (typeof definition.targetClass !== 'string') throw Errors.invalidJson(`The targetClass of ${name} must be a class name.`);
    assertClassName(definition.targetClass);
    field.targetClass = definition.targetClass;
  }
  if (definition.required !== undefined) {
    if (typeof definition.required !== 'boolean') throw Errors.incorrectType(`"required" of ${name} must be a boolean.`);
    field.required = definition.required;
  }
  if (definition.defaultValue !== undefined) field.defaultValue = parseDefaultValue(name, field, definition.defaultValue);
  return field;
}

/** A default value is stored as object writes store values, so it must be one of the field's type. */
function parseDefaultValue(name: string, field: FieldType, value: unknown): unknown {
  // Relations live in the join table; there is no value a new object could start with.
  if (field.type === 'Relation') throw Errors.incorrectType(`Relation field ${name} cannot have a default value.`);
  const decoded = decodeValue(value, name);
  if (!decoded.type || !sameType(decoded.type, field)) {
    throw Errors.incorrectType(`The default value of ${name} is ${decoded.type ? describeType(decoded.type) : 'null'}; the field is ${describeType(field)}.`);
  }
  return decoded.value;
}

const OPERATIONS = ['get', 'find', 'count', 'create', 'update', 'delete', 'addField'] as const;
const USER_ID = '[A-Za-z0-9_-]{1,64}';
const ROLE = 'role:[A-Za-z0-9_ -]+';
const PRINCIPAL = new RegExp(`^(\\*|requiresAuthentication|${ROLE}|${USER_ID})$`);
const PROTECTED_PRINCIPAL = new RegExp(`^(\\*|authenticated|${ROLE}|${USER_ID})$`);

/**
 * Class-level permissions (decisions.md), checked against the fields the class will have. They
 * replace the class's permissions as a whole: an operation left out is open to the master key
 * only, as in Parse, so that permissions read back are exactly the ones in force.
 */
export function parseClassLevelPermissions(value: unknown, fields: Fields): ClassLevelPermissions {
  if (!isPlainObject(value)) throw Errors.invalidJson('classLevelPermissions must be an object.');
  const out: Record<string, unknown> = { ...Object.fromEntries(OPERATIONS.map((operation) => [operation, {}])), protectedFields: {} };
  for (const [operation, rule] of Object.entries(value)) {
    const where = `classLevelPermissions.${operation}`;
    if ((OPERATIONS as readonly string[]).includes(operation)) {
      if (!isPlainObject(rule)) throw Errors.invalidJson(`${where} must be an object.`);
      for (const [principal, allowed] of Object.entries(rule)) {
        if (principal === 'pointerFields') {
          userPointerFields(allowed, fields, `${where}.pointerFields`);
          continue;
        }
        if (!PRINCIPAL.test(principal)) throw Errors.invalidJson(`${where}: ${JSON.stringify(principal.slice(0, 80))} is not "*", a user id, "role:<name>" or "requiresAuthentication".`);
        if (allowed !== true) throw Errors.invalidJson(`${where}.${principal} must be true.`);
      }
      out[operation] = rule;
    } else if (operation === 'readUserFields' || operation === 'writeUserFields') {
      out[operation] = userPointerFields(rule, fields, where);
    } else if (operation === 'protectedFields') {
      out[operation] = protectedFields(rule, fields);
    } else {
      throw Errors.invalidJson(`Unknown class-level permission ${JSON.stringify(operation.slice(0, 80))}.`);
    }
  }
  return out;
}

/** Fields whose user gets access: each a Pointer to _User, or an Array (of such pointers). */
function userPointerFields(value: unknown, fields: Fields, where: string): string[] {
  if (!Array.isArray(value) || !value.every((field) => typeof field === 'string')) throw Errors.invalidJson(`${where} must be an array of field names.`);
  for (const name of value as string[]) {
    if (!isUserPointer(fieldOf(fields, name))) throw Errors.invalidJson(`${where}: ${JSON.stringify(name.slice(0, 80))} is not a Pointer to _User or an Array field of this class.`);
  }
  return value as string[];
}

function isUserPointer(field: FieldType | undefined): boolean {
  return field !== undefined && ((field.type === 'Pointer' && field.targetClass === '_User') || field.type === 'Array');
}

/** `{audience: [field, …]}`: fields hidden from an audience; only the class's own fields qualify. */
function protectedFields(value: unknown, fields: Fields): Record<string, string[]> {
  if (!isPlainObject(value)) throw Errors.invalidJson('classLevelPermissions.protectedFields maps audiences to arrays of field names.');
  for (const [audience, hidden] of Object.entries(value)) {
    const where = `classLevelPermissions.protectedFields[${JSON.stringify(audience.slice(0, 80))}]`;
    const userField = audience.startsWith('userField:') ? audience.slice('userField:'.length) : null;
    if (userField !== null ? !isUserPointer(fieldOf(fields, userField)) : !PROTECTED_PRINCIPAL.test(audience)) {
      throw Errors.invalidJson(`${where}: the audience is not "*", "authenticated", a user id, "role:<name>" or "userField:<user pointer field>".`);
    }
    if (!Array.isArray(hidden) || !hidden.every((field) => typeof field === 'string')) throw Errors.invalidJson(`${where} must be an array of field names.`);
    for (const name of hidden as string[]) {
      if (isDefaultField(name)) throw Errors.invalidJson(`${where}: default field ${name} cannot be protected.`);
      if (!fieldOf(fields, name)) throw Errors.invalidJson(`${where}: field ${JSON.stringify(name.slice(0, 80))} does not exist.`);
    }
  }
  return value as Record<string, string[]>;
}

const INDEX_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/**
 * One index of the schema API: `{field: 1 | -1, …}`, or a text index `{field: "text"}` of one
 * field, with a name of letters, digits and "_".
 */
export function parseIndexKeys(name: string, keys: unknown): Record<string, 1 | -1 | 'text'> {
  if (!INDEX_NAME.test(name)) throw Errors.invalidQuery(`Invalid index name ${JSON.stringify(name.slice(0, 80))}: letters, digits and "_", starting with a letter, 40 at most.`);
  if (!isPlainObject(keys) || Object.keys(keys).length === 0) throw Errors.invalidQuery(`Index ${name} needs at least one field.`);
  for (const [field, direction] of Object.entries(keys)) {
    if (!isValidFieldName(field)) throw Errors.invalidQuery(`Index ${name}: ${JSON.stringify(field.slice(0, 80))} is not a field name.`);
    if (direction !== 1 && direction !== -1 && direction !== 'text') throw Errors.invalidQuery(`Index ${name}: the direction of ${field} must be 1, -1 or "text".`);
    if (direction === 'text' && Object.keys(keys).length > 1) throw Errors.invalidQuery(`Index ${name}: a text index covers exactly one field.`);
  }
  return keys as Record<string, 1 | -1 | 'text'>;
}
