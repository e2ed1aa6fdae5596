/** A response as a test sees it. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** A raw body sent as is (for malformed-input tests); `json` is ignored when set. */
  raw?: string;
  form?: Record<string, string>;
}

/** Small fetch wrapper for e2e tests: JSON in, parsed JSON (or text) out. */
export async function request<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  json?: unknown,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
  } else if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (json !== undefined) {
    body = JSON.stringify(json);
    headers['content-type'] ??= 'application/json';
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the test sees the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A client bound to one base URL and, optionally, one token. */
export function api(baseUrl: string, token?: string) {
  const call =
    (method: string) =>
    <T = any>(path: string, json?: unknown, options: RequestOptions = {}) =>
      request<T>(baseUrl, method, path, json, { token, ...options });
  return {
    get: <T = any>(path: string, options: RequestOptions = {}) =>
      request<T>(baseUrl, 'GET', path, undefined, { token, ...options }),
    post: call('POST'),
    put: call('PUT'),
    patch: call('PATCH'),
    delete: <T = any>(path: string, options: RequestOptions = {}) =>
      request<T>(baseUrl, 'DELETE', path, undefined, { token, ...options }),
    withToken: (next: string) => api(baseUrl, next),
  };
}
