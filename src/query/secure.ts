import { and, type SubQuery, type WhereNode } from './ast.ts';

/**
 * A condition the caller's inner queries on a class must meet besides the ACL, or null: a
 * restricted session's inner queries on `_Session` see restricted sessions only (spec 5 rule 5).
 */
export type InnerScope = (className: string) => WhereNode | null;

const NO_SCOPE: InnerScope = () => null;

/**
 * Adds the caller's read permission to a query: to its own `where`, to every inner query, and to
 * the owner of a `$relatedTo`, so no path of a query reads what the caller may not. `null`
 * principals (the master key) leave the query as it is.
 */
export function secure(node: WhereNode, principals: readonly string[] | null, scopeOf: InnerScope = NO_SCOPE): WhereNode {
  if (!principals) return node;
  return and([secureInner(node, principals, scopeOf), { kind: 'acl', access: 'read', principals }]);
}

function secureInner(node: WhereNode, principals: readonly string[], scopeOf: InnerScope): WhereNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { ...node, nodes: node.nodes.map((child) => secureInner(child, principals, scopeOf)) };
    case 'not':
      return { ...node, node: secureInner(node.node, principals, scopeOf) };
    case 'inSubquery':
      return { ...node, query: secureQuery(node.query, principals, scopeOf) };
    case 'relationHolds':
      return 'query' in node.related ? { ...node, related: { query: secureQuery(node.related.query, principals, scopeOf) } } : node;
    case 'relatedTo':
      return { ...node, ownerRead: principals };
    default:
      return node;
  }
}

function secureQuery(query: SubQuery, principals: readonly string[], scopeOf: InnerScope): SubQuery {
  const where = secure(query.where, principals, scopeOf);
  const scope = scopeOf(query.className);
  return { ...query, where: scope ? and([where, scope]) : where };
}
