/** Header values as single strings (several of one name joined by ", "), names as node gives them (lower case). */
export function plainHeaders(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
