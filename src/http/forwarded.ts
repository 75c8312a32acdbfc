/**
 * An entry of an X-Forwarded-* header, read with --trust-proxy (the rules of proxy-addr, which
 * fastify applied when Basalt ran on it, so a deployment behind a proxy sees the same client):
 * the address is the first entry of X-Forwarded-For that is not empty (the client, as the first proxy saw it), the host and the
 * protocol the last entry of theirs. Undefined when the header is absent or holds no entry.
 */
export function forwardedEntry(header: string | string[] | undefined, which: 'first' | 'last'): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (which === 'last') {
    const entry = value.slice(value.lastIndexOf(',') + 1).trim();
    return entry === '' ? undefined : entry;
  }
  for (const part of value.split(',')) {
    const entry = part.replace(/^ +| +$/g, '');
    if (entry !== '') return entry;
  }
  return undefined;
}
