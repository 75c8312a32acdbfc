/**
 * `Parse.Cloud.httpRequest` as Parse Server has it: `{method, url, headers, body, params,
 * followRedirects}` in; `{status, headers, text, data, buffer}` out, rejected with that same
 * response when the status is 400 or more. Built on Node's fetch.
 */
export interface HttpRequestOptions {
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly params?: string | Record<string, unknown>;
  readonly followRedirects?: boolean;
  readonly success?: (response: HttpResponse) => void;
  readonly error?: (response: HttpResponse) => void;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly buffer: Buffer;
  readonly text: string;
  readonly data: unknown;
  readonly cookies?: Record<string, string>;
}

export async function httpRequest(options: HttpRequestOptions): Promise<HttpResponse> {
  const url = new URL(options.url);
  if (typeof options.params === 'string') url.search = options.params;
  else if (options.params) for (const [key, value] of Object.entries(options.params)) url.searchParams.append(key, String(value));
  const headers: Record<string, string> = { ...options.headers };
  const method = (options.method ?? 'GET').toUpperCase();
  const response = await fetch(url, { method, headers, body: encodeBody(options.body, headers) as BodyInit | undefined, redirect: options.followRedirects ? 'follow' : 'manual' });
  const buffer = Buffer.from(await response.arrayBuffer());
  const text = buffer.toString('utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const answer: HttpResponse = { status: response.status, headers: Object.fromEntries(response.headers), buffer, text, data };
  if (response.status >= 400) {
    options.error?.(answer);
    throw answer;
  }
  options.success?.(answer);
  return answer;
}

/** An object body is JSON or a form, by the Content-Type given; a form without one (Parse's default). */
function encodeBody(body: unknown, headers: Record<string, string>): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  const typeKey = Object.keys(headers).find((key) => key.toLowerCase() === 'content-type');
  const type = typeKey ? headers[typeKey]! : '';
  if (type.includes('json')) return JSON.stringify(body);
  if (!typeKey) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  return new URLSearchParams(Object.entries(body as Record<string, unknown>).map(([key, value]) => [key, String(value)])).toString();
}
