import { and, type WhereNode } from './ast.ts';

/**
 * Adds the caller's read permission to a query: to its own `where`, to every inner query, and to
 * the owner of a `$relatedTo`, so no path of a query reads what the caller may not. `null`
 * principals (the master key) leave the query as it is.
 */
export function secure(node: WhereNode, principals: readonly string[] | null): WhereNode {
  if (!principals) return node;
  return and([secureInner(node, principals), { kind: 'acl', access: 'read', principals }]);
}

function secureInner(node: WhereNode, principals: readonly string[]): WhereNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { ...node, nodes: node.nodes.map((child) => secureInner(child, principals)) };
    case 'not':
      return { ...node, node: secureInner(node.node, principals) };
    case 'inSubquery':
      return { ...node, query: { ...node.query, where: secure(node.query.where, principals) } };
    case 'relationHolds':
      return 'query' in node.related ? { ...node, related: { query: { ...node.related.query, where: secure(node.related.query.where, principals) } } } : node;
    case 'relatedTo':
      return { ...node, ownerRead: principals };
    default:
      return node;
  }
}
