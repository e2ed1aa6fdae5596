import type { Dispatcher } from 'undici';
import { callHttp, HttpCallError, type JsonValue } from '@agentplatform/service-kit';
import { grantOrigin, URL_PLACEHOLDER, type HttpGrant } from '../domain/tools.js';
import { ToolError, type Tool } from './tool.js';

/** The grant's URL with `{{args.x}}` filled from the arguments (each value URL-encoded). */
export function renderUrl(template: string, args: Record<string, unknown>): string {
  return template.replace(URL_PLACEHOLDER, (_, key: string) => {
    const value = args[key];
    return encodeURIComponent(value === undefined || value === null ? '' : String(value));
  });
}

/** GET and DELETE: the arguments the URL template did not use, as query parameters. */
function withQuery(template: string, url: string, args: Record<string, unknown>): string {
  const inPath = new Set([...template.matchAll(URL_PLACEHOLDER)].map((m) => m[1]));
  const out = new URL(url);
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null || inPath.has(key)) continue;
    out.searchParams.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return out.toString();
}

/**
 * An HTTP call through the SSRF guard (`dispatcher`), with the arguments as JSON body (GET and
 * DELETE: as query). A non-2xx answer is an error step; the result is `{status, body}`.
 * `headers` are the grant's opened header values; they are sent, never returned or logged.
 */
export function httpTool(
  grant: HttpGrant,
  headers: Record<string, string>,
  dispatcher: Dispatcher,
  timeoutMs: number,
): Tool {
  const origin = grantOrigin(grant);
  return {
    name: grant.name,
    description: grant.description || `Calls ${grant.method} ${origin}`,
    parameters: grant.input_schema ?? { type: 'object', properties: {} },
    async run(args, signal) {
      const url = renderUrl(grant.url, args);
      // Validation keeps placeholders out of the origin; this holds for grants stored before it did.
      if (!URL.canParse(url) || new URL(url).origin !== origin) {
        throw new ToolError(`refused: the arguments would send this call outside ${origin}`);
      }
      const bodyless = grant.method === 'GET' || grant.method === 'DELETE';
      try {
        const answer = await callHttp(
          {
            method: grant.method,
            url: bodyless ? withQuery(grant.url, url, args) : url,
            headers: { ...headers },
            body: bodyless ? undefined : (args as JsonValue),
            timeoutMs,
            signal,
          },
          dispatcher,
        );
        return { status: answer.status, body: answer.body };
      } catch (error) {
        if (error instanceof HttpCallError) throw new ToolError(error.message);
        throw error;
      }
    },
  };
}
