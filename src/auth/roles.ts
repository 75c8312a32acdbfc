import type { AppStore } from '../storage/port.ts';
import type { SchemaService } from '../schema/service.ts';
import type { WhereNode } from '../query/ast.ts';

export const ROLE = '_Role';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 50_000;
/** Role ids per look-up: well under SQLite's bound-parameter limit. */
const CHUNK = 1000;
/** Parents found per look-up, at most (a role with more direct parents than this is not a real app). */
const MAX_PER_LEVEL = 10_000;

/**
 * The role graph of one app (spec 2.5): which roles a user has, directly through a role's `users`
 * relation or through the `roles` relation of a role above. A parent P lists a child C in
 * `P.roles`, and C's users get P's permissions, to any depth; a cycle only ends the walk.
 *
 * The answer, as ACL principals (`role:<name>`), is cached per user and dropped in every process
 * when any role changes (the app registry relays the message), with a time limit as a backstop for
 * a message that never arrives.
 */
export class RoleService {
  private readonly cache = new Map<string, { principals: Promise<readonly string[]>; at: number }>();

  constructor(
    private readonly store: AppStore,
    private readonly schemas: SchemaService,
    private readonly onChange: () => Promise<void>,
  ) {}

  invalidate(): void {
    this.cache.clear();
  }

  /** Drops this process's copy and tells the others to drop theirs. */
  async changed(): Promise<void> {
    this.invalidate();
    await this.onChange();
  }

  /** `role:<name>` for every role the user has, its own and every one above them. */
  principalsOf(userId: string): Promise<readonly string[]> {
    const cached = this.cache.get(userId);
    if (cached && Date.now() - cached.at < CACHE_TTL_MS) return cached.principals;
    const principals = this.load(userId);
    // A failed look-up is not remembered: the next request tries again.
    principals.catch(() => {
      if (this.cache.get(userId)?.principals === principals) this.cache.delete(userId);
    });
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(userId, { principals, at: Date.now() });
    return principals;
  }

  private async load(userId: string): Promise<readonly string[]> {
    if (!(await this.schemas.get(ROLE))) return [];
    const names = new Map<string, string>();
    // Breadth first, upwards: the roles holding the user, then the roles holding those.
    let frontier = await this.holders('users', [userId]);
    while (frontier.length > 0) {
      const fresh = frontier.filter((role) => !names.has(role.id));
      for (const role of fresh) names.set(role.id, role.name);
      frontier = fresh.length > 0 ? await this.holders('roles', fresh.map((role) => role.id)) : [];
    }
    return [...new Set(names.values())].map((name) => `role:${name}`);
  }

  /** Roles whose relation `field` holds one of `ids`, read without permissions (membership is not access). */
  private async holders(field: 'users' | 'roles', ids: readonly string[]): Promise<{ id: string; name: string }[]> {
    const found: { id: string; name: string }[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const where: WhereNode = {
        kind: 'relationHolds',
        field: { kind: 'doc', path: [field], untyped: true },
        owningClass: ROLE,
        key: field,
        related: { ids: ids.slice(i, i + CHUNK) },
      };
      for (const role of await this.store.find(ROLE, { where, order: [], limit: MAX_PER_LEVEL, skip: 0 })) {
        if (typeof role.data.name === 'string') found.push({ id: role.objectId, name: role.data.name });
      }
    }
    return found;
  }
}
