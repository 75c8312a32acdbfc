import type { FuzzRequest } from './requests.ts';

/**
 * Known server faults that the fuzzer is bound to find, and that are being fixed apart from it.
 * A 500 (or an answer past the time bound) to a request one of these matches is counted and
 * printed, not failed. Each line goes once its fix is merged; when the list is empty, delete it
 * and its use in `run.ts`. The matchers look at the request as sent, so they are broad on
 * purpose: better a known fault let through than a flaky failure.
 */
export interface KnownIssue {
  readonly id: string;
  readonly what: string;
  matches(request: FuzzRequest, backend: 'sqlite' | 'postgres'): boolean;
}

export const KNOWN: readonly KnownIssue[] = [
  { id: 'a', what: 'equality or $in with an object or array value on objectId, createdAt or updatedAt', matches: (r) => /"(objectId|createdAt|updatedAt)":\s*(\[|\{(?!"__type":"Date"))/.test(text(r)) },
  { id: 'b', what: 'values nested ~10,000 deep overflow the stack while an error message is formatted', matches: (r) => nesting(text(r)) >= 1_000 },
  { id: 'c', what: 'PostgreSQL: $select/$dontSelect whose inner key is of another type', matches: (r, backend) => backend === 'postgres' && /\$(select|dontSelect)/.test(text(r)) },
  { id: 'd', what: 'PostgreSQL: a regex repetition count over 255', matches: (r, backend) => backend === 'postgres' && /\$regex/.test(text(r)) && /[{,]\s*\d{3,}/.test(text(r)) },
  { id: 'e', what: 'SQLite: a backtracking regex with the i option', matches: (r, backend) => backend === 'sqlite' && /\$regex/.test(text(r)) && /\$options/.test(text(r)) },
  // Found by this fuzzer, in the query parser (not fixed here): parse.ts quotes a where value's
  // __type with String(), which throws on an object with a toString key of its own:
  // where={"score":{"__type":{"toString":1}}} answers 500 on both backends.
  { id: 'f', what: 'a where value whose __type is an object (or array of objects) with a toString key', matches: (r) => /"__type":\s*[[{][^]*"toString"/.test(text(r)) },
];

/** The request's path and body, with the query string's escapes undone. */
function text(request: FuzzRequest): string {
  let path = request.path;
  try {
    path = decodeURIComponent(path.replace(/\+/g, ' '));
  } catch {
    // Broken escapes stay as they are.
  }
  return `${path}\n${request.body ?? ''}`;
}

function nesting(value: string): number {
  let depth = 0;
  let deepest = 0;
  for (const char of value) {
    if (char === '{' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === '}' || char === ']') depth--;
  }
  return deepest;
}
