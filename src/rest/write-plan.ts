import { Errors } from '../errors/index.ts';
import { PUBLIC, decodeAcl, removesAcl, type Permissions } from '../encoding/acl.ts';
import { applyOp, parseFieldOp, type FieldOp } from '../encoding/ops.ts';
import { isPlainObject } from '../encoding/values.ts';
import { RESERVED_FIELDS, assertFieldName } from '../schema/names.ts';
import type { FieldType } from '../schema/types.ts';
import type { RelationChange } from '../storage/port.ts';
import { applyNested, planNested, setNested, type NestedKey } from './write-nested.ts';

/** A create or update body, checked and split into field operations, before anything is written. */
export interface WritePlan {
  /** By body key: a field, or a dotted path into an Object field (`stats.level`, write-nested.ts). */
  readonly ops: ReadonlyMap<string, FieldOp>;
  /** The dotted keys of `ops`, split into their path. */
  readonly nested: ReadonlyMap<string, NestedKey>;
  readonly types: ReadonlyMap<string, FieldType>;
  /** Present when the body sets the ACL (`ACL: null` or a Delete resets it to public). */
  readonly permissions: Permissions | undefined;
}

export interface PlanOptions {
  /**
   * Fields an endpoint writes by its own rules (a user's password, email, authData…): their
   * values never come through the plan, so a dotted key into them is refused (105).
   */
  readonly ownFields?: ReadonlySet<string>;
}

export function planWrite(body: unknown, options: PlanOptions = {}): WritePlan {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  const ops = new Map<string, FieldOp>();
  const nested = new Map<string, NestedKey>();
  const types = new Map<string, FieldType>();
  let permissions: Permissions | undefined;
  for (const field of Object.keys(body)) {
    const value = body[field];
    if (field === 'ACL') {
      permissions = removesAcl(value) ? PUBLIC : decodeAcl(value);
      continue;
    }
    // Most keys have no dot: one search keeps the common case as it was.
    if (field.includes('.')) {
      const planned = planNested(field, value, options.ownFields);
      ops.set(field, planned.op);
      nested.set(field, planned.key);
      types.set(planned.key.path[0]!, planned.type);
      continue;
    }
    if (RESERVED_FIELDS.has(field)) throw Errors.invalidKeyName(`${field} is set by the server and cannot be written.`);
    assertFieldName(field);
    const parsed = parseFieldOp(field, value);
    ops.set(field, parsed.op);
    if (parsed.type) types.set(field, parsed.type);
  }
  if (nested.size > 0) refuseOverlaps(ops, nested);
  return { ops, nested, types, permissions };
}

/**
 * `{"stats": {...}, "stats.level": 5}` or `{"a.b": 1, "a.b.c": 2}` say two things of one value;
 * which wins would depend on the order of the keys, so such a body is refused.
 */
function refuseOverlaps(ops: ReadonlyMap<string, FieldOp>, nested: ReadonlyMap<string, NestedKey>): void {
  for (const [field, { path }] of nested) {
    let prefix = path[0]!;
    for (let i = 1; i < path.length; i++) {
      if (ops.has(prefix)) throw Errors.invalidKeyName(`${JSON.stringify(field.slice(0, 80))} and ${JSON.stringify(prefix.slice(0, 80))} change the same value.`);
      prefix += `.${path[i]}`;
    }
  }
}

export interface AppliedPlan {
  readonly data: Record<string, unknown>;
  readonly relations: RelationChange[];
  /** Fields whose new value the response reports (the results of Increment, Add, …), dotted keys nested. */
  readonly opResults: Record<string, unknown>;
}

/** Applies the plan's operations to a document (empty for a create). */
export function applyPlan(plan: WritePlan, current: Readonly<Record<string, unknown>>, permissions: Permissions): AppliedPlan {
  const data: Record<string, unknown> = { ...current };
  const relations: RelationChange[] = [];
  const opResults: Record<string, unknown> = {};
  for (const [field, op] of plan.ops) {
    if (op.kind === 'relation') {
      if (op.add.length || op.remove.length) relations.push({ field, add: op.add, remove: op.remove });
      continue;
    }
    const key = plan.nested.size > 0 ? plan.nested.get(field) : undefined;
    let next: unknown;
    if (key) next = applyNested(data, key, op);
    else {
      // Own fields only: a document without "constructor" must not hand its inherited method to the op.
      next = applyOp(field, Object.hasOwn(current, field) ? current[field] : undefined, op);
      if (next === undefined) delete data[field];
      else data[field] = next;
    }
    if (op.kind === 'set' || op.kind === 'delete') continue;
    // Parse Server answers a dotted key's result nested (`{"stats": {"level": 6}}`), and the
    // SDKs merge it into the field that way.
    if (key) setNested(opResults, key.path, next);
    else opResults[field] = next;
  }
  if (permissions.acl) data.ACL = permissions.acl;
  else delete data.ACL;
  return { data, relations, opResults };
}
