import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { and, TRUE, type FieldRef, type OrderKey, type WhereNode } from '../query/ast.ts';
import { fieldAccess } from '../query/fields.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { SchemaService } from '../schema/service.ts';
import type { StoredObject } from '../storage/port.ts';

/** The operations a class-level permission governs (decisions.md). */
export type ClassOperation = 'get' | 'find' | 'count' | 'create' | 'update' | 'delete' | 'addField';

/** The caller as permissions see it; the request context's `auth` has this shape. */
export interface Caller {
  readonly isMaster: boolean;
  readonly userId: string | null;
  /** `*`, the user's id and `role:<name>` of each of its roles. */
  readonly principals: readonly string[];
}

/**
 * What a class-level permission grants: every object the ACLs allow (`userFields` null), or only
 * the objects whose user fields name the caller (Parse's pointer permissions: `readUserFields`,
 * `writeUserFields` and an operation's `pointerFields`). ACLs apply in both cases.
 */
export interface ClassGrant {
  readonly userFields: readonly string[] | null;
}

const EVERYTHING: ClassGrant = Object.freeze({ userFields: null });
const FALSE: WhereNode = Object.freeze({ kind: 'const', value: false });
const READS: ReadonlySet<ClassOperation> = new Set(['get', 'find', 'count']);

type Rule = Readonly<Record<string, unknown>>;

/**
 * The grant of one operation on one class, or null when the class-level permissions refuse it.
 * As in Parse: `*`, one of the caller's principals, or `requiresAuthentication` with a user
 * grants everything; otherwise user fields may grant the objects that name the caller. A create
 * or a new field concerns no existing object, so user fields never grant those.
 */
export function findGrant(caller: Caller, schema: ClassSchema, operation: ClassOperation): ClassGrant | null {
  if (caller.isMaster) return EVERYTHING;
  const permissions = schema.classLevelPermissions;
  const rule = isPlainObject(permissions[operation]) ? (permissions[operation] as Rule) : null;
  // Stored permissions always name every operation (schema/definition.ts); one missing is open, as in Parse.
  if (!rule) return EVERYTHING;
  if (rule['*'] === true || caller.principals.some((principal) => rule[principal] === true)) return EVERYTHING;
  if (rule.requiresAuthentication === true && caller.userId) return EVERYTHING;
  if (operation === 'create' || operation === 'addField') return null;
  const fields = new Set([...names(rule.pointerFields), ...names(permissions[READS.has(operation) ? 'readUserFields' : 'writeUserFields'])]);
  return fields.size > 0 ? { userFields: [...fields] } : null;
}

/** The grant, or 403/119 (decisions.md: a valid key without the privilege). */
export function classGrant(caller: Caller, schema: ClassSchema, operation: ClassOperation): ClassGrant {
  const grant = findGrant(caller, schema, operation);
  if (!grant) throw Errors.operationForbidden(`Permission denied for ${operation} on class ${schema.className}.`);
  return grant;
}

/**
 * For the endpoints of built-in classes (users, sessions): the grant of an operation on a class,
 * 403/119 when its class-level permissions refuse the caller. A class that does not exist yet
 * will be created with the public default, so it refuses nothing.
 */
export async function checkClassPermission(ctx: { readonly auth: Caller; readonly app: { readonly schemas: SchemaService } }, className: string, operation: ClassOperation): Promise<ClassGrant> {
  if (ctx.auth.isMaster) return EVERYTHING;
  const schema = await ctx.app.schemas.get(className);
  return schema ? classGrant(ctx.auth, schema, operation) : EVERYTHING;
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
}

/** The objects a grant allows, as a query constraint: only those whose user fields name the caller. */
export function grantWhere(grant: ClassGrant, schema: ClassSchema, userId: string | null): WhereNode {
  if (!grant.userFields) return TRUE;
  if (!userId) return FALSE;
  const nodes: WhereNode[] = [];
  for (const name of grant.userFields) {
    const type = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
    if (type?.type === 'Pointer') nodes.push({ kind: 'compare', field: fieldAccess(name, type).field, op: 'eq', value: userId, as: 'text' });
    else if (type?.type === 'Array') nodes.push({ kind: 'arrayContains', field: { kind: 'doc', path: [name] }, value: userId, as: 'text', subKey: 'objectId' });
  }
  if (nodes.length === 0) return FALSE;
  return nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes };
}

/** The same test as `grantWhere`, on an object already read. */
export function grantAllows(grant: ClassGrant, object: StoredObject, userId: string | null): boolean {
  if (!grant.userFields) return true;
  return userId !== null && grant.userFields.some((field) => namesUser(object.data[field], userId));
}

/** A user field (a Pointer, or an Array of them) names the user. */
function namesUser(value: unknown, userId: string): boolean {
  return Array.isArray(value) ? value.some((item) => pointsTo(item, userId)) : pointsTo(value, userId);
}

function pointsTo(value: unknown, userId: string): boolean {
  return isPlainObject(value) && value.__type === 'Pointer' && value.objectId === userId;
}

/** What `protectedFields` hides from one caller in one class. */
export interface Shield {
  readonly className: string;
  /** Hidden in every object of the class. */
  readonly hidden: readonly string[];
  /** `userField:<field>` audiences: in an object whose field names the caller, only their lists stay hidden. */
  readonly byUserField: readonly (readonly [field: string, hidden: readonly string[]])[];
}

/**
 * The fields hidden from a caller: the intersection of the lists of every audience it belongs to
 * (`*`, `authenticated`, its id, its roles), so the most open audience wins, as in Parse. Null
 * when nothing is hidden.
 */
export function shieldOf(caller: Caller, schema: ClassSchema): Shield | null {
  if (caller.isMaster) return null;
  const rules = schema.classLevelPermissions.protectedFields;
  if (!isPlainObject(rules)) return null;
  let hidden: string[] | null = null;
  const byUserField: [string, string[]][] = [];
  for (const [audience, fields] of Object.entries(rules)) {
    const list = names(fields);
    if (audience.startsWith('userField:')) {
      byUserField.push([audience.slice('userField:'.length), list]);
      continue;
    }
    const member = audience === '*' || (caller.userId !== null && (audience === 'authenticated' || caller.principals.includes(audience)));
    if (member) hidden = hidden === null ? list : hidden.filter((field) => list.includes(field));
  }
  return hidden && hidden.length > 0 ? { className: schema.className, hidden, byUserField } : null;
}

/** What stays hidden of one object: a user always sees all of its own `_User` object. */
export function hiddenFields(shield: Shield, object: StoredObject, userId: string | null): readonly string[] {
  if (userId === null) return shield.hidden;
  if (shield.className === '_User' && object.objectId === userId) return [];
  let hidden = shield.hidden;
  for (const [field, list] of shield.byUserField) {
    if (namesUser(object.data[field], userId)) hidden = hidden.filter((name) => list.includes(name));
  }
  return hidden;
}

/** Removes protected fields from rendered objects; `rendered[i]` is `stored[i]` as sent. */
export function hideProtected(caller: Caller, schema: ClassSchema, stored: readonly StoredObject[], rendered: readonly Record<string, unknown>[]): void {
  const shield = shieldOf(caller, schema);
  if (!shield) return;
  for (const [i, object] of stored.entries()) {
    for (const field of hiddenFields(shield, object, caller.userId)) delete rendered[i]![field];
  }
}

/**
 * A query may not filter or sort on a field hidden from the caller, or the answers would tell
 * its values (Parse refuses such queries the same way, with 119).
 */
export function assertNotProtected(shield: Shield | null, where: WhereNode, order: readonly OrderKey[] = [], selected: FieldRef | null = null): void {
  if (!shield) return;
  const used = new Set<string>();
  fieldsOf(where, used);
  for (const key of order) addField(key.field, used);
  if (selected) addField(selected, used);
  const named = shield.hidden.find((field) => used.has(field));
  if (named) throw Errors.operationForbidden(`This user is not allowed to query ${named} on class ${shield.className}.`);
}

/** The top-level fields a query reads in its own class (inner queries read other classes). */
function fieldsOf(node: WhereNode, out: Set<string>): void {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.nodes) fieldsOf(child, out);
      return;
    case 'not':
      fieldsOf(node.node, out);
      return;
    case 'const':
    case 'acl':
    case 'relatedTo':
      return;
    case 'relationHolds':
      out.add(node.key);
      return;
    default:
      addField(node.field, out);
  }
}

function addField(field: FieldRef, out: Set<string>): void {
  if (field.kind === 'doc') out.add(field.path[0]!);
}

/** What guarding the inner parts of a query needs to know. */
export interface QueryGuard {
  readonly caller: Caller;
  readonly schemaOf: (className: string) => ClassSchema | null;
  /** Whether the caller may read this object under a grant limited to user fields (`$relatedTo` owners). */
  readonly readable: (className: string, objectId: string, grant: ClassGrant) => Promise<boolean>;
}

/**
 * Applies the class-level permissions of every other class a query reads: an inner query
 * (`$inQuery`, `$select`, a Relation's inner query) needs `find` on its class, is limited to the
 * objects its grant allows and may not use protected fields; a `$relatedTo` owner needs `get`.
 * ACLs are added afterwards, by query/secure.ts.
 */
export async function guardInner(guard: QueryGuard, node: WhereNode): Promise<WhereNode> {
  if (guard.caller.isMaster) return node;
  switch (node.kind) {
    case 'and':
    case 'or':
      return { ...node, nodes: await Promise.all(node.nodes.map((child) => guardInner(guard, child))) };
    case 'not':
      return { ...node, node: await guardInner(guard, node.node) };
    case 'inSubquery':
      return { ...node, query: await guardSubquery(guard, node.query) };
    case 'relationHolds':
      return 'query' in node.related ? { ...node, related: { query: await guardSubquery(guard, node.related.query) } } : node;
    case 'relatedTo': {
      const owner = guard.schemaOf(node.owningClass);
      if (!owner) return node;
      const grant = classGrant(guard.caller, owner, 'get');
      return grant.userFields && !(await guard.readable(node.owningClass, node.owningId, grant)) ? FALSE : node;
    }
    default:
      return node;
  }
}

async function guardSubquery<Q extends { readonly className: string; readonly where: WhereNode; readonly select: FieldRef }>(guard: QueryGuard, query: Q): Promise<Q> {
  const schema = guard.schemaOf(query.className);
  if (!schema) return query;
  const grant = classGrant(guard.caller, schema, 'find');
  assertNotProtected(shieldOf(guard.caller, schema), query.where, [], query.select);
  const where = await guardInner(guard, query.where);
  return { ...query, where: and([where, grantWhere(grant, schema, guard.caller.userId)]) };
}
