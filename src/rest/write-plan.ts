import { Errors } from '../errors/index.ts';
import { PUBLIC, decodeAcl, removesAcl, type Permissions } from '../encoding/acl.ts';
import { applyOp, parseFieldOp, type FieldOp } from '../encoding/ops.ts';
import { isPlainObject } from '../encoding/values.ts';
import { RESERVED_FIELDS, assertFieldName } from '../schema/names.ts';
import type { FieldType } from '../schema/types.ts';
import type { RelationChange } from '../storage/port.ts';

/** A create or update body, checked and split into field operations, before anything is written. */
export interface WritePlan {
  readonly ops: ReadonlyMap<string, FieldOp>;
  readonly types: ReadonlyMap<string, FieldType>;
  /** Present when the body sets the ACL (`ACL: null` or a Delete resets it to public). */
  readonly permissions: Permissions | undefined;
}

export function planWrite(body: unknown): WritePlan {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  const ops = new Map<string, FieldOp>();
  const types = new Map<string, FieldType>();
  let permissions: Permissions | undefined;
  for (const field of Object.keys(body)) {
    const value = body[field];
    if (field === 'ACL') {
      permissions = removesAcl(value) ? PUBLIC : decodeAcl(value);
      continue;
    }
    if (RESERVED_FIELDS.has(field)) throw Errors.invalidKeyName(`${field} is set by the server and cannot be written.`);
    assertFieldName(field);
    const parsed = parseFieldOp(field, value);
    ops.set(field, parsed.op);
    if (parsed.type) types.set(field, parsed.type);
  }
  return { ops, types, permissions };
}

export interface AppliedPlan {
  readonly data: Record<string, unknown>;
  readonly relations: RelationChange[];
  /** Fields whose new value the response reports (the results of Increment, Add, …). */
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
    // Own fields only: a document without "constructor" must not hand its inherited method to the op.
    const next = applyOp(field, Object.hasOwn(current, field) ? current[field] : undefined, op);
    if (next === undefined) delete data[field];
    else data[field] = next;
    if (op.kind !== 'set' && op.kind !== 'delete') opResults[field] = next;
  }
  if (permissions.acl) data.ACL = permissions.acl;
  else delete data.ACL;
  return { data, relations, opResults };
}
