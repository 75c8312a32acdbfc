/** The API console's request: checked before it is sent, and written out as a curl command. */

export const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

export interface ConsoleRequest {
  readonly method: Method;
  readonly path: string;
  /** The body's text; sent only with POST and PUT. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A reason the request cannot be sent, or null. The body must be JSON so that the server reads what was meant. */
export function requestProblem(request: ConsoleRequest): string | null {
  if (!request.path.startsWith('/1/')) return 'The path starts with /1/ (for example /1/classes/GameScore).';
  if (!hasBody(request.method) || request.body.trim() === '') return null;
  try {
    JSON.parse(request.body);
    return null;
  } catch (error) {
    return `The body is not valid JSON: ${(error as Error).message}`;
  }
}

export function hasBody(method: Method): boolean {
  return method === 'POST' || method === 'PUT';
}

/** The body as sent: the text given (not reformatted), or nothing. */
export function bodyToSend(request: ConsoleRequest): string | undefined {
  return hasBody(request.method) && request.body.trim() !== '' ? request.body : undefined;
}

/** Single quotes keep everything literal in a POSIX shell; a quote inside is closed, escaped and reopened. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The same request as a curl command, with the keys exactly as sent (the console is for the app's owner). */
export function curlCommand(origin: string, request: ConsoleRequest): string {
  const parts = [`curl -X ${request.method} ${shellQuote(origin + request.path)}`];
  for (const [name, value] of Object.entries(request.headers)) parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  const body = bodyToSend(request);
  if (body !== undefined) {
    parts.push(`-H ${shellQuote('Content-Type: application/json')}`);
    parts.push(`-d ${shellQuote(body)}`);
  }
  return parts.join(' \\\n  ');
}

/** The answer for reading: JSON indented, anything else as it came. */
export function answerText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
